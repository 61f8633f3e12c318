// Realtime clients for tests: an SSE stream read with fetch and parsed by eventsource-parser, and
// a WebSocket (Node's global WebSocket). Both collect what arrives and wait for it.
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface Received {
  id?: string;
  event: string;
  data: { resource?: string; action?: string; record?: Record<string, unknown> & { id: string }; [k: string]: unknown };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds (polling), failing with `what` after `ms`. */
export async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

export class SseClient {
  readonly events: Received[] = [];
  comments = 0;
  status = 0;
  body = '';
  ended = false;
  private readonly controller = new AbortController();

  private constructor() {}

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const client = new SseClient();
    const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: client.controller.signal });
    client.status = response.status;
    if (response.status !== 200 || !response.body) {
      client.body = await response.text();
      client.ended = true;
      return client;
    }
    const parser = createParser({
      onEvent: (message: EventSourceMessage) => {
        client.events.push({ ...(message.id !== undefined ? { id: message.id } : {}), event: message.event ?? 'message', data: JSON.parse(message.data) as Received['data'] });
      },
      onComment: () => {
        client.comments++;
      },
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parser.feed(value);
        }
      } catch {
        // aborted
      } finally {
        client.ended = true;
      }
    })();
    return client;
  }

  /** The changes (create/update/delete) received, as `action id`. */
  changes(): Array<{ action: string; id: string; record: Record<string, unknown> }> {
    return this.events.filter((e) => ['create', 'update', 'delete'].includes(e.event)).map((e) => ({ action: e.event, id: e.data.record!.id, record: e.data.record! }));
  }

  close(): void {
    this.controller.abort();
  }
}

export class WsClient {
  readonly messages: Array<Record<string, unknown>> = [];
  closeCode: number | null = null;
  private constructor(readonly socket: WebSocket) {}

  static async open(url: string): Promise<WsClient> {
    const socket = new WebSocket(url);
    const client = new WsClient(socket);
    socket.addEventListener('message', (event) => client.messages.push(JSON.parse(String(event.data)) as Record<string, unknown>));
    socket.addEventListener('close', (event) => {
      client.closeCode = event.code;
    });
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener('open', () => resolve(), { once: true });
      socket.addEventListener('error', () => reject(new Error(`WebSocket ${url} did not open`)), { once: true });
    });
    return client;
  }

  send(message: unknown): void {
    this.socket.send(JSON.stringify(message));
  }

  close(): void {
    this.socket.close();
  }
}
