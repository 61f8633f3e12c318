// Realtime clients for tests: an SSE stream read with fetch and parsed by eventsource-parser, and
// a WebSocket (Node's global WebSocket). Both collect what arrives and wait for it.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface Received {
  id?: string;
  /** When it arrived (performance.now() of this process). */
  at: number;
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
        client.events.push({ ...(message.id !== undefined ? { id: message.id } : {}), at: performance.now(), event: message.event ?? 'message', data: JSON.parse(message.data) as Received['data'] });
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

/**
 * A subscriber that stops reading when told: an SSE stream (node:http) or a WebSocket spoken over
 * a plain TCP socket (the upgrade and masked client frames written by hand), whose socket is
 * paused so that the server's writes back up. Counts the bytes it reads and notes the socket's end.
 */
export class PausableSubscriber {
  received = 0;
  ended = false;
  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => (this.received += chunk.length));
    socket.on('close', () => (this.ended = true));
    socket.on('error', () => (this.ended = true));
  }

  /** `GET url` with `headers`, after the answer's head (status 200 expected) and first bytes. */
  static sse(url: string, headers: Record<string, string>): Promise<PausableSubscriber> {
    return PausableSubscriber.open(url, `GET ${new URL(url).pathname}${new URL(url).search} HTTP/1.1\r\n${headerLines({ accept: 'text/event-stream', ...headers })}\r\n`, /^HTTP\/1\.1 200/);
  }

  /** The WebSocket upgrade of `url` (101 expected); then `send` writes text frames. */
  static webSocket(url: string): Promise<PausableSubscriber> {
    const { pathname, search } = new URL(url);
    const upgrade = { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64') };
    return PausableSubscriber.open(url, `GET ${pathname}${search} HTTP/1.1\r\n${headerLines(upgrade)}\r\n`, /^HTTP\/1\.1 101/);
  }

  private static async open(url: string, request: string, expected: RegExp): Promise<PausableSubscriber> {
    const { hostname, port } = new URL(url);
    const socket = connect({ host: hostname, port: Number(port) });
    await once(socket, 'connect');
    socket.write(request.replace('\r\n', `\r\nhost: ${hostname}:${port}\r\n`));
    const [head] = (await once(socket, 'data')) as [Buffer];
    if (!expected.test(head.toString('latin1'))) throw new Error(`unexpected answer: ${head.toString('latin1').slice(0, 300)}`);
    const subscriber = new PausableSubscriber(socket);
    subscriber.received = head.length;
    return subscriber;
  }

  /** One masked text frame (a client's frames are masked, RFC 6455 §5.3). */
  send(message: unknown): void {
    const payload = Buffer.from(JSON.stringify(message));
    if (payload.length > 125) throw new Error('short messages only');
    const mask = randomBytes(4);
    const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]));
    this.socket.write(Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]));
  }

  /** Stops reading: the kernel's buffers fill, then the server's. */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  close(): void {
    this.socket.destroy();
  }
}

/** The status code of a WebSocket upgrade of `url` sent with `headers` (101: it opened; else the refusal's). */
export async function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  const { hostname, port, pathname, search } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  await once(socket, 'connect');
  const upgrade = { host: `${hostname}:${port}`, upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64'), ...headers };
  socket.write(`GET ${pathname}${search} HTTP/1.1\r\n${headerLines(upgrade)}\r\n`);
  const [head] = (await once(socket, 'data')) as [Buffer];
  socket.destroy();
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(head.toString('latin1'))?.[1] ?? 0);
}

function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
}
