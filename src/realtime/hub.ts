// The realtime hub (DESIGN §17): the connections of this process, what each listens to (topics.ts),
// and the hand-over of each committed change to them: one visibility statement per change and
// served version (visibility.ts) for every audience of its topics at once, then each connection's
// copy to its transport. Several changes are judged at once (their statements in flight together,
// PIPELINE), and written in their order.
import { Problem, badRequest } from '../errors.ts';
import type { Db } from '../storage/db.ts';
import { isUuid } from '../tools/ids.ts';
import type { CompiledApp, CompiledModel } from '../runtime/compiled-app.ts';
import type { ServedApp } from '../runtime/registry.ts';
import { ChangeFeed, type ChangeEvent, type FeedLogger } from './feed.ts';
import { realtimeChangesTotal, realtimeConnections, realtimeSlowDroppedTotal, realtimeStatementsTotal } from './metrics.ts';
import { TopicIndex } from './topics.ts';
import { Visibility, type Audience, type RealtimeAction, type Verdict } from './visibility.ts';
import type { RealtimeSettings } from './settings.ts';
import { StreamSlots, type StreamSlot } from './stream-slots.ts';

/** What a transport sends: a change (`id` is the event's number) or the reset that tells the client to reload. */
export type OutEvent = { kind: 'change'; id: number; resource: string; action: RealtimeAction; record: Record<string, unknown> } | { kind: 'reset' } | { kind: 'ping' };

/** One open SSE stream or WebSocket. */
export interface Connection {
  readonly applicationId: string;
  readonly served: ServedApp;
  readonly audience: Audience;
  /** The end user's id, for the per-user limit; null for an administrator or nobody. */
  readonly userId: string | null;
  /** `toDos` (every change the caller may read) or `toDos/{id}` (one record); changed through the hub only. */
  readonly topics: Set<string>;
  /** Writes an event; false when the connection was dropped (closed, or too slow to drain). */
  write(event: OutEvent): boolean;
  /** Ends the connection (token expired or revoked, slow, shutting down). */
  end(reason: string): void;
  /** Checks the token again (revocation); false: the connection must end. */
  stillValid(): Promise<boolean>;
  /** Numbers up to this one were sent (replay and live never send one twice). */
  lastSent: number;
  /** Live changes held while a replay runs. */
  held: ChangeEvent[] | null;
  expiryTimer?: NodeJS.Timeout;
  /** Its place in the counts of open streams (stream-slots.ts), given back when it is detached. */
  slot?: StreamSlot;
}

/** Changes whose visibility statements may be in flight at once. */
const PIPELINE = 4;

/** Connections a ping or a revalidation round handles before letting deliveries run. */
const SLICE = 256;

/**
 * `fn` for each item, SLICE at a time with the event loop let go in between: a round over 10,000
 * connections (a socket write each) would otherwise hold every delivery for ~100 ms.
 */
async function inSlices<T>(items: T[], fn: (item: T) => unknown): Promise<void> {
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && i % SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    await fn(items[i]);
  }
}

const ACTIONS: Record<string, RealtimeAction> = { created: 'create', updated: 'update', deleted: 'delete' };

const modelsByName = new WeakMap<CompiledApp, Map<string, CompiledModel>>();
function modelNamed(app: CompiledApp, name: string): CompiledModel | undefined {
  let models = modelsByName.get(app);
  if (!models) modelsByName.set(app, (models = new Map(app.models.map((m) => [m.name, m]))));
  return models.get(name);
}

/** `{Model}.created` → the model and the action; null for custom events (`event.emit`). */
function changeOf(app: CompiledApp, event: ChangeEvent): { model: CompiledModel; action: RealtimeAction } | null {
  const dot = event.name.lastIndexOf('.');
  const action = ACTIONS[event.name.slice(dot + 1)];
  const model = dot > 0 ? modelNamed(app, event.name.slice(0, dot)) : undefined;
  return action && model ? { model, action } : null;
}

export class RealtimeHub {
  private readonly byApp = new Map<string, Set<Connection>>();
  private readonly topics = new TopicIndex<Connection>();
  /** Per served version: audience key → its connections (its fragments are forgotten with the last). */
  private readonly audienceCount = new Map<CompiledApp, Map<string, number>>();
  /** Connections replaying (Last-Event-ID): live changes wait in their `held`. */
  private readonly replaying = new Set<Connection>();
  /** Open streams per address, application and end user: taken at admission, before a stream opens. */
  readonly slots: StreamSlots;
  private readonly visibility: Visibility;
  private feed: ChangeFeed | undefined;
  private ping: NodeJS.Timeout | undefined;
  private revalidate: NodeJS.Timeout | undefined;
  /** Visibility statements run (the bench divides by changes). */
  visibilityStatements = 0;
  /** Changes judged for someone listening (per served version: one visibility statement each). */
  changes = 0;
  /** Connections dropped as slow consumers, and the most bytes one of them had left unsent. */
  readonly slow = { dropped: 0, largestUnsent: 0 };

  constructor(
    private readonly db: Db,
    readonly settings: RealtimeSettings,
    options: { relationLimit?: number; embeddedIdLimit?: number } = {},
    private logger?: FeedLogger,
  ) {
    this.slots = new StreamSlots(settings);
    this.visibility = new Visibility(db, { ...options, onStatement: () => {
        this.visibilityStatements++;
        realtimeStatementsTotal.inc({ kind: 'visibility' });
      },
    });
  }

  /** The server's logger, when none was given at construction (the transports hand theirs). */
  adoptLogger(logger: FeedLogger): void {
    this.logger ??= logger;
  }

  async start(): Promise<void> {
    // Through `this.logger`, so that one adopted later is used.
    const logger: FeedLogger = { warn: (details, message) => this.logger?.warn(details, message), error: (details, message) => this.logger?.error(details, message) };
    this.feed = await ChangeFeed.start(this.db, {
      wanted: () => [...this.byApp.keys()],
      deliver: (events) => this.deliver(events),
      logger,
    });
    this.ping = setInterval(() => void inSlices(this.all(), (c) => c.write({ kind: 'ping' })), this.settings.pingMs);
    this.ping.unref();
    this.revalidate = setInterval(() => void this.checkTokens(), this.settings.revalidateMs);
    this.revalidate.unref();
  }

  /** Statements the outbox reader ran. */
  get feedStatements(): number {
    return this.feed?.statements ?? 0;
  }

  /** Checks topics against the served version: 400 naming an unknown resource or a bad id, 429 past the limit. */
  checkTopics(app: CompiledApp, topics: string[], already = 0): void {
    if (already + topics.length > this.settings.maxSubscriptions) {
      throw new Problem(429, `At most ${this.settings.maxSubscriptions} subscriptions per connection.`, [{ path: '/subscribe', message: 'too many topics' }]);
    }
    for (const topic of topics) {
      const [resource, id, ...rest] = topic.split('/');
      if (!app.modelsByResource.has(resource) || rest.length > 0 || (id !== undefined && !isUuid(id))) {
        throw badRequest(`No such topic '${topic}': expected a resource of this version, or resource/{id}.`, [{ path: '/subscribe', message: `'${topic}' is not a topic` }]);
      }
    }
  }

  /** Registers a connection (admitted before: its slot is taken); with `lastEventId`, first replays what it missed (or sends `reset`). */
  async attach(connection: Connection, lastEventId: number | null): Promise<void> {
    let connections = this.byApp.get(connection.applicationId);
    if (!connections) this.byApp.set(connection.applicationId, (connections = new Set()));
    connections.add(connection);
    realtimeConnections.inc();
    this.topics.add(connection, connection.topics);
    const app = connection.served.compiled;
    let counts = this.audienceCount.get(app);
    if (!counts) this.audienceCount.set(app, (counts = new Map()));
    counts.set(connection.audience.key, (counts.get(connection.audience.key) ?? 0) + 1);
    if (lastEventId === null || !this.feed) return;
    connection.lastSent = lastEventId;
    connection.held = [];
    this.replaying.add(connection);
    try {
      const missed = await this.feed.replay(connection.applicationId, lastEventId, this.settings.retentionSeconds);
      if (missed === 'reset') connection.write({ kind: 'reset' });
      else for (const event of missed) await this.send(event, connection);
      while (connection.held.length > 0) {
        const held = connection.held;
        connection.held = [];
        for (const event of held) await this.send(event, connection);
      }
    } finally {
      connection.held = null;
      this.replaying.delete(connection);
    }
  }

  /** Adds topics to a connection (checked by checkTopics first). */
  subscribe(connection: Connection, topics: string[]): void {
    const fresh = topics.filter((t) => !connection.topics.has(t));
    for (const t of fresh) connection.topics.add(t);
    if (this.byApp.get(connection.applicationId)?.has(connection)) this.topics.add(connection, fresh);
  }

  /** Removes topics from a connection. */
  unsubscribe(connection: Connection, topics: string[]): void {
    const gone = topics.filter((t) => connection.topics.delete(t));
    this.topics.remove(connection, gone);
  }

  detach(connection: Connection): void {
    clearTimeout(connection.expiryTimer);
    connection.slot?.release();
    const connections = this.byApp.get(connection.applicationId);
    if (!connections?.delete(connection)) return;
    realtimeConnections.dec();
    if (connections.size === 0) this.byApp.delete(connection.applicationId);
    this.topics.remove(connection, connection.topics);
    this.replaying.delete(connection);
    const app = connection.served.compiled;
    const counts = this.audienceCount.get(app);
    const left = (counts?.get(connection.audience.key) ?? 1) - 1;
    if (left > 0) counts!.set(connection.audience.key, left);
    else {
      counts?.delete(connection.audience.key);
      if (counts?.size === 0) this.audienceCount.delete(app);
      this.visibility.forget(app, connection.audience.key);
    }
  }

  /**
   * Drops a slow consumer: its transport saw more than `maxBufferedBytes` unsent, so it stops
   * receiving (its socket is destroyed by the transport) rather than buffering without bound.
   */
  dropSlow(connection: Connection, unsentBytes: number): void {
    if (!this.byApp.get(connection.applicationId)?.has(connection)) return;
    this.detach(connection);
    this.slow.dropped++;
    realtimeSlowDroppedTotal.inc();
    this.slow.largestUnsent = Math.max(this.slow.largestUnsent, unsentBytes);
    this.logger?.warn({ applicationId: connection.applicationId, unsentBytes }, 'realtime subscriber dropped: too slow to read its events');
  }

  /** Open connections (of one application, or of all). */
  connectionCount(applicationId?: string): number {
    if (applicationId !== undefined) return this.byApp.get(applicationId)?.size ?? 0;
    let n = 0;
    for (const connections of this.byApp.values()) n += connections.size;
    return n;
  }

  /** Waits for the outbox reader's pass under way (tests). */
  async settle(): Promise<void> {
    await this.feed?.settle();
  }

  /** Reads the outbox now (after a write in this process, not to wait for the notice). */
  kick(): void {
    this.feed?.kick();
  }

  private each(fn: (c: Connection) => void): void {
    for (const connections of this.byApp.values()) for (const c of [...connections]) fn(c);
  }

  private all(): Connection[] {
    const all: Connection[] = [];
    this.each((c) => all.push(c));
    return all;
  }

  private async checkTokens(): Promise<void> {
    await inSlices(
      this.all().filter((c) => c.userId !== null),
      async (c) => {
        if (!(await c.stillValid().catch(() => true))) c.end('the token is no longer valid');
      },
    );
  }

  /** A pass's changes, in order: judged PIPELINE at a time, each written once judged and its predecessors written. */
  private async deliver(events: ChangeEvent[]): Promise<void> {
    const window: Array<Promise<() => void>> = [];
    for (const event of events) {
      for (const c of this.replaying) if (c.applicationId === event.applicationId) c.held?.push(event);
      if (!this.byApp.has(event.applicationId)) continue;
      window.push(
        this.judge(event).catch((error: unknown) => {
          this.logger?.error({ err: error, seq: event.seq }, 'realtime delivery failed');
          return () => {};
        }),
      );
      if (window.length >= PIPELINE) (await window.shift()!)();
    }
    while (window.length > 0) (await window.shift()!)();
  }

  /**
   * Judges one change for everyone listening to its topics (one statement per served version) and
   * answers what writes it: at writing time, to the connections of each audience with a verdict.
   */
  private async judge(event: ChangeEvent): Promise<() => void> {
    const writes: Array<() => void> = [];
    for (const app of this.topics.versions(event.applicationId)) {
      const change = changeOf(app, event);
      if (!change) continue;
      const resource = change.model.resource;
      const topics = [resource, `${resource}/${event.payload.id}`];
      const listening = this.topics.audiences(app, event.applicationId, topics[0], topics[1]);
      if (!listening) continue;
      const verdicts = await this.visibility.decide(app, change.model, change.action, event.payload, event.previous, listening.list, listening.scope);
      this.changes++;
      realtimeChangesTotal.inc();
      writes.push(() => {
        for (const [key, verdict] of verdicts) {
          for (const c of this.topics.connections(app, event.applicationId, topics, key)) if (c.held === null) this.write(c, event, resource, verdict);
        }
      });
    }
    return () => writes.forEach((write) => write());
  }

  private write(c: Connection, event: ChangeEvent, resource: string, verdict: Verdict): void {
    if (c.lastSent >= event.seq) return;
    c.lastSent = event.seq;
    c.write({ kind: 'change', id: event.seq, resource, action: verdict.action, record: verdict.record });
  }

  /** One change to one connection (a replay, or what was held during it). */
  private async send(event: ChangeEvent, c: Connection): Promise<void> {
    if (c.lastSent >= event.seq) return;
    const app = c.served.compiled;
    const change = changeOf(app, event);
    const resource = change?.model.resource;
    if (change && (c.topics.has(resource!) || c.topics.has(`${resource}/${event.payload.id}`))) {
      const verdict = (await this.visibility.decide(app, change.model, change.action, event.payload, event.previous, [c.audience])).get(c.audience.key);
      if (verdict) this.write(c, event, resource!, verdict);
    }
    c.lastSent = Math.max(c.lastSent, event.seq);
  }

  async close(): Promise<void> {
    clearInterval(this.ping);
    clearInterval(this.revalidate);
    this.each((c) => c.end('the service is stopping'));
    await this.feed?.close();
  }
}
