// The topic registry (DESIGN §17): the connections of this process, what each listens to, and the
// hand-over of each committed change to them: one visibility statement per change (visibility.ts)
// for every connection of the application at once, then each connection's copy to its transport.
import { Problem, badRequest } from '../errors.ts';
import type { Db } from '../storage/db.ts';
import { isUuid } from '../tools/ids.ts';
import type { CompiledApp, CompiledModel } from '../runtime/compiled-app.ts';
import type { ServedApp } from '../runtime/registry.ts';
import { ChangeFeed, type ChangeEvent, type FeedLogger } from './feed.ts';
import { Visibility, type Audience, type RealtimeAction } from './visibility.ts';
import type { RealtimeSettings } from './settings.ts';

/** What a transport sends: a change (`id` is the event's number) or the reset that tells the client to reload. */
export type OutEvent = { kind: 'change'; id: number; resource: string; action: RealtimeAction; record: Record<string, unknown> } | { kind: 'reset' } | { kind: 'ping' };

/** One open SSE stream or WebSocket. */
export interface Connection {
  readonly applicationId: string;
  readonly served: ServedApp;
  readonly audience: Audience;
  /** The end user's id, for the per-user limit; null for an administrator or nobody. */
  readonly userId: string | null;
  /** `toDos` (every change the caller may read) or `toDos/{id}` (one record). */
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
  private readonly perUser = new Map<string, number>();
  private readonly visibility: Visibility;
  private feed: ChangeFeed | undefined;
  private ping: NodeJS.Timeout | undefined;
  private revalidate: NodeJS.Timeout | undefined;
  /** Visibility statements run (the bench divides by changes). */
  visibilityStatements = 0;
  /** Changes handed to at least one connection. */
  changes = 0;

  constructor(
    private readonly db: Db,
    readonly settings: RealtimeSettings,
    options: { relationLimit?: number; embeddedIdLimit?: number } = {},
    private readonly logger?: FeedLogger,
  ) {
    this.visibility = new Visibility(db, { ...options, onStatement: () => this.visibilityStatements++ });
  }

  async start(): Promise<void> {
    this.feed = await ChangeFeed.start(this.db, {
      wanted: () => [...this.byApp.keys()],
      deliver: (events) => this.deliver(events),
      ...(this.logger ? { logger: this.logger } : {}),
    });
    this.ping = setInterval(() => this.each((c) => c.write({ kind: 'ping' })), this.settings.pingMs);
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

  /** 429 when the end user already holds the most connections allowed. */
  admit(applicationId: string, userId: string | null): void {
    if (userId === null) return;
    if ((this.perUser.get(`${applicationId} ${userId}`) ?? 0) >= this.settings.maxConnectionsPerUser) {
      throw new Problem(429, `At most ${this.settings.maxConnectionsPerUser} realtime connections per end user.`);
    }
  }

  /** Registers a connection; with `lastEventId`, first replays what it missed (or sends `reset`). */
  async attach(connection: Connection, lastEventId: number | null): Promise<void> {
    this.admit(connection.applicationId, connection.userId);
    let connections = this.byApp.get(connection.applicationId);
    if (!connections) this.byApp.set(connection.applicationId, (connections = new Set()));
    connections.add(connection);
    if (connection.userId !== null) {
      const key = `${connection.applicationId} ${connection.userId}`;
      this.perUser.set(key, (this.perUser.get(key) ?? 0) + 1);
    }
    if (lastEventId === null || !this.feed) return;
    connection.lastSent = lastEventId;
    connection.held = [];
    try {
      const missed = await this.feed.replay(connection.applicationId, lastEventId, this.settings.retentionSeconds);
      if (missed === 'reset') connection.write({ kind: 'reset' });
      else for (const event of missed) await this.send(event, [connection]);
      while (connection.held.length > 0) {
        const held = connection.held;
        connection.held = [];
        for (const event of held) await this.send(event, [connection]);
      }
    } finally {
      connection.held = null;
    }
  }

  detach(connection: Connection): void {
    clearTimeout(connection.expiryTimer);
    const connections = this.byApp.get(connection.applicationId);
    if (!connections?.delete(connection)) return;
    if (connections.size === 0) this.byApp.delete(connection.applicationId);
    if (connection.userId !== null) {
      const key = `${connection.applicationId} ${connection.userId}`;
      const left = (this.perUser.get(key) ?? 1) - 1;
      if (left > 0) this.perUser.set(key, left);
      else this.perUser.delete(key);
    }
    if (![...(connections ?? [])].some((c) => c.audience.key === connection.audience.key)) {
      this.visibility.forget(connection.served.compiled, connection.audience.key);
    }
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

  private async checkTokens(): Promise<void> {
    const all: Connection[] = [];
    this.each((c) => {
      if (c.userId !== null) all.push(c);
    });
    for (const c of all) {
      if (!(await c.stillValid().catch(() => true))) c.end('the token is no longer valid');
    }
  }

  private async deliver(events: ChangeEvent[]): Promise<void> {
    for (const event of events) {
      const connections = this.byApp.get(event.applicationId);
      if (!connections || connections.size === 0) continue;
      const live: Connection[] = [];
      for (const c of connections) {
        if (c.held) c.held.push(event);
        else live.push(c);
      }
      await this.send(event, live).catch((error: unknown) => this.logger?.error({ err: error, seq: event.seq }, 'realtime delivery failed'));
    }
  }

  /** One change to `connections`: per served version, one visibility statement for all of them. */
  private async send(event: ChangeEvent, connections: Connection[]): Promise<void> {
    const byVersion = new Map<CompiledApp, Connection[]>();
    for (const c of connections) {
      if (c.lastSent >= event.seq) continue;
      const list = byVersion.get(c.served.compiled);
      if (list) list.push(c);
      else byVersion.set(c.served.compiled, [c]);
    }
    for (const [app, list] of byVersion) {
      const change = changeOf(app, event);
      if (!change) continue;
      const resource = change.model.resource;
      const recordTopic = `${resource}/${event.payload.id}`;
      const listening = list.filter((c) => c.topics.has(resource) || c.topics.has(recordTopic));
      if (listening.length === 0) continue;
      const audiences = new Map<string, Audience>();
      for (const c of listening) audiences.set(c.audience.key, c.audience);
      const verdicts = await this.visibility.decide(app, change.model, change.action, event.payload, event.previous, [...audiences.values()]);
      this.changes++;
      for (const c of listening) {
        const verdict = verdicts.get(c.audience.key);
        c.lastSent = Math.max(c.lastSent, event.seq);
        if (verdict) c.write({ kind: 'change', id: event.seq, resource, action: verdict.action, record: verdict.record });
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.ping);
    clearInterval(this.revalidate);
    this.each((c) => c.end('the service is stopping'));
    await this.feed?.close();
  }
}
