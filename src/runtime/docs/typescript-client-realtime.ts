/**
 * The realtime part of a version's `client.ts` (DESIGN §17): `subscribe` over
 * `GET {app api}/realtime?subscribe=…`, read with `fetch` as a stream of Server-Sent Events.
 * The SSE format is a few `field: value` lines and a blank line per event, so the client reads
 * it with a small line reader of its own: the generated file is the whole client, with nothing to
 * install, so no SSE or EventSource library may be bundled into it (and `EventSource` itself is
 * missing from Node and cannot send an `Authorization` header). Like the rest of the runtime it
 * uses only globals every runtime has (`fetch`, `AbortController`, `TextDecoder`, `setTimeout`),
 * and type-checks under `strict`, `noUncheckedIndexedAccess` and `exactOptionalPropertyTypes`.
 * typescript-client.ts writes `RealtimeRecords` (resource → the record its `get` answers) and the
 * `subscribe` members that call this runtime.
 */

/** Names this part of the client declares at the top level: a schema with one of them keeps only its `components["schemas"]` form. */
export const REALTIME_NAMES = ['RealtimeEvent', 'AnyRealtimeEvent', 'RealtimeRecords', 'RealtimeResource', 'Topic', 'SubscribeOptions', 'SseMessage', 'sseParser', 'realtime'];

const TOPIC_TYPE = 'export type Topic = RealtimeResource | `${RealtimeResource}/${string}`;';

export const CLIENT_REALTIME = String.raw`
// Realtime: "subscribe" reads GET /realtime (Server-Sent Events) through fetch as a stream, parsed
// by the small line reader below. This file is the whole client, with nothing to install, so no SSE
// or EventSource library is bundled into it (and EventSource, missing from Node, sends no headers).

/**
 * A change as GET /realtime sends it, as it commits: "record" is exactly what "get" answers this
 * caller (field rules applied); a delete, or a record the caller may no longer read, carries its
 * id only. "id" is the event's number: pass the last one seen as "lastEventId" to resume.
 */
export type RealtimeEvent<R = unknown, N extends string = string> =
  | { id: string; resource: N; action: "create" | "update"; record: R }
  | { id: string; resource: N; action: "delete"; record: { id: string } };

type RealtimeResource = keyof RealtimeRecords & string;

/** A change of any resource of this version: narrow with "event.resource", then "event.action". */
export type AnyRealtimeEvent = { [N in RealtimeResource]: RealtimeEvent<RealtimeRecords[N], N> }[RealtimeResource];

/** A resource (every change of it the caller may read) or "resource/{id}" (one record). */
` + TOPIC_TYPE + String.raw`

export interface SubscribeOptions {
  /** Resume after this event: the server replays what was missed within its retention, or calls onReset. */
  lastEventId?: string | undefined;
  /** Called each time the stream is open: first, and after each reconnection. */
  onOpen?: (() => void) | undefined;
  /** Some changes since lastEventId are past the server's retention: reload what you show. */
  onReset?: (() => void) | undefined;
  /**
   * The subscription stopped for good: an answer other than 200 and 5xx (ApiProblem: 401 when the
   * token expired or was revoked, 429 past the limits). Network failures and 5xx are retried.
   */
  onError?: ((error: unknown) => void) | undefined;
  /** Aborting it unsubscribes, as the returned function does. */
  signal?: AbortSignal | undefined;
}

interface SseMessage {
  event: string;
  data: string;
  id: string | undefined;
}

/** A line reader of Server-Sent Events (the WHATWG format): "field: value" lines, a blank line ends an event. */
function sseParser(onMessage: (message: SseMessage) => void, onRetry: (ms: number) => void): (chunk: string, last?: boolean) => void {
  let buffer = "";
  let data: string[] = [];
  let event = "";
  let id: string | undefined;
  const line = (text: string) => {
    if (text === "") {
      if (data.length > 0) onMessage({ event: event || "message", data: data.join("\n"), id });
      data = [];
      event = "";
      return;
    }
    // A comment (": ping", ": connected").
    if (text.startsWith(":")) return;
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") event = value;
    else if (field === "id" && !value.includes("\0")) id = value;
    else if (field === "retry" && /^\d+$/.test(value)) onRetry(Number(value));
  };
  return (chunk, last = false) => {
    buffer += chunk;
    for (;;) {
      const end = buffer.search(/\r\n|\r|\n/);
      // A "\r" last may be the first half of "\r\n": wait for the next chunk (unless the stream ended).
      if (end < 0 || (end === buffer.length - 1 && buffer[end] === "\r" && !last)) return;
      line(buffer.slice(0, end));
      buffer = buffer.slice(end + (buffer.startsWith("\r\n", end) ? 2 : 1));
    }
  };
}

const CHANGES: ReadonlySet<string> = new Set(["create", "update", "delete"]);

function realtime(options: ClientOptions, state: ClientState) {
  const base = options.baseUrl.replace(/\/+$/, "");
  const send = options.fetch ?? globalThis.fetch;

  /**
   * Streams the changes of "topics" to "handler" until the answered function is called. When the
   * stream ends or fails it reconnects (after 1 s, doubling to 30 s while it fails) with the last
   * event's id, so nothing is missed within the server's retention, and with the client's token of
   * the moment (after auth.refresh() too).
   */
  function subscribe<E>(topics: readonly string[], handler: (event: E) => void, subscribeOptions: SubscribeOptions = {}): () => void {
    const { onOpen, onReset, onError, signal } = subscribeOptions;
    const controller = new AbortController();
    let lastEventId = subscribeOptions.lastEventId;
    // The server's "retry:" (else 1 s) after a stream ends; doubled after each failure in a row, to 30 s.
    let retryMs = 1000;
    let failures = 0;
    const stop = () => {
      signal?.removeEventListener("abort", stop);
      controller.abort();
    };
    if (signal?.aborted) return stop;
    signal?.addEventListener("abort", stop, { once: true });

    const deliver = (message: SseMessage) => {
      if (controller.signal.aborted) return;
      if (message.id !== undefined) lastEventId = message.id;
      if (message.event === "reset") onReset?.();
      if (!CHANGES.has(message.event)) return;
      const change = JSON.parse(message.data) as { resource: string; action: string; record: unknown };
      try {
        handler({ id: message.id ?? "", resource: change.resource, action: change.action, record: change.record } as unknown as E);
      } catch (error) {
        // The handler's own failure is reported as any uncaught error; the stream goes on.
        setTimeout(() => {
          throw error;
        });
      }
    };

    /** One connection: "stop" after a refusal, else (the stream ended) "retry". Throws on a network failure or a 5xx. */
    const connect = async (): Promise<"stop" | "retry"> => {
      const headers: Record<string, string> = { accept: "text/event-stream", ...options.headers };
      if (state.token) headers["authorization"] = "Bearer " + state.token;
      if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
      const url = base + "/realtime?subscribe=" + topics.map(encodeURIComponent).join(",");
      const response = await send(url, { headers, signal: controller.signal });
      if (response.status !== 200 || response.body === null) {
        const text = await response.text();
        let data: unknown = text;
        try {
          data = JSON.parse(text);
        } catch {
          // not JSON: the text is the detail
        }
        const problem = new ApiProblem(response.status, problemOf(response.status, response.statusText, data));
        if (response.status >= 500) throw problem;
        onError?.(problem);
        return "stop";
      }
      failures = 0;
      onOpen?.();
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      const feed = sseParser(deliver, (ms) => (retryMs = ms));
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          feed(decoder.decode(), true);
          return "retry";
        }
        feed(decoder.decode(value, { stream: true }));
      }
    };

    void (async () => {
      while (!controller.signal.aborted) {
        try {
          if ((await connect()) === "stop") return stop();
        } catch {
          // A network failure, a 5xx, or the unsubscribe: tried again below unless unsubscribed.
          failures += 1;
        }
        if (controller.signal.aborted) return;
        const wait = Math.min(retryMs * 2 ** Math.max(0, failures - 1), 30000);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          controller.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
        });
      }
    })();
    return stop;
  }

  return { subscribe };
}
`;
