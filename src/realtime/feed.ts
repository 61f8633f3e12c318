// The outbox reader (DESIGN §17): committed `appbuilder.events` rows, in their number order, to the
// realtime hub of this process. A row is numbered when inserted (migration 013), so a transaction
// still running may hold a number below a committed one. A pass therefore
//   1. reads the sequence (L): every row numbered up to L has been inserted;
//   2. notes the transactions that hold a lock on `appbuilder.events` now (S, their top-level ids):
//      a transaction whose row is numbered up to L has either committed by then or is among them
//      (an insert locks the table before its trigger takes the number, until the transaction ends);
//   3. reads (cursor, L] in a statement whose own snapshot shows every transaction of S ended
//      (visible in it, or aborted); else it waits a little and tries again with a new snapshot.
// Only writers of the outbox are waited for: a long transaction elsewhere (another database of the
// cluster, a report) does not hold the feed back. (A snapshot's xmax is no bound for this: it is the
// latest completed id + 1, and a transaction that took its id later but runs on is not listed in it.)
// Passes are woken by `NOTIFY appbuilder_realtime` (sent at commit by the trigger: a rolled-back
// write announces nothing) over a LISTEN connection on PostgreSQL, by PGlite's own notices on the
// embedded store, and by a slow poll in case a notice was missed.
import { sql } from 'kysely';
import pg from 'pg';
import { listenUrlOf, type Db } from '../storage/db.ts';
import { realtimeStatementsTotal } from './metrics.ts';

export const REALTIME_CHANNEL = 'appbuilder_realtime';

/** One committed change as the outbox holds it (the plain record, relationships as ids). */
export interface ChangeEvent {
  seq: number;
  applicationId: string;
  name: string;
  payload: Record<string, unknown> & { id: string };
  previous: (Record<string, unknown> & { id: string }) | null;
}

export interface FeedLogger {
  warn(details: object, message?: string): void;
  error(details: object, message?: string): void;
}

interface EventRow {
  seq: string;
  application_id: string;
  name: string;
  payload: ChangeEvent['payload'] | string;
  previous: ChangeEvent['previous'] | string;
}

const parsed = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

function toEvent(row: EventRow): ChangeEvent {
  return { seq: Number(row.seq), applicationId: row.application_id, name: row.name, payload: parsed(row.payload), previous: row.previous === null ? null : parsed(row.previous) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const EPOCH = 2n ** 32n;
/** The 64-bit id of 32-bit `xid`, the one nearest to `near` (a 64-bit id). */
function widen(near: bigint, xid: bigint): bigint {
  let candidate = near - (near % EPOCH) + xid;
  if (candidate > near + EPOCH / 2n) candidate -= EPOCH;
  else if (candidate < near - EPOCH / 2n) candidate += EPOCH;
  return candidate;
}

export interface FeedOptions {
  /** The applications whose changes anyone here listens to; others are skipped unread. */
  wanted(): string[];
  /** Receives each pass's changes in order; awaited before the next pass. */
  deliver(events: ChangeEvent[]): Promise<void>;
  logger?: FeedLogger;
  /** The fallback poll, ms (a missed notice is caught by it). */
  pollMs?: number;
}

export class ChangeFeed {
  /** The highest number read (or skipped) so far: every change up to it has been handed on. */
  cursor = 0;
  /** SQL statements this feed ran (for the bench: they must not grow with subscribers). */
  statements = 0;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private poll: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private client: pg.Client | null = null;
  private retry: NodeJS.Timeout | undefined;

  private constructor(
    private readonly db: Db,
    private readonly options: FeedOptions,
  ) {}

  static async start(db: Db, options: FeedOptions): Promise<ChangeFeed> {
    const feed = new ChangeFeed(db, options);
    feed.cursor = await feed.lastNumber();
    await feed.listen();
    feed.poll = setInterval(() => feed.kick(), options.pollMs ?? 1000);
    feed.poll.unref();
    return feed;
  }

  /** Reads soon; calls while a pass runs fold into one more pass. */
  kick(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.pass();
        } while (this.again && !this.closed);
      } catch (error) {
        this.options.logger?.error({ err: error }, 'realtime feed pass failed; the poll tries again');
      } finally {
        this.running = undefined;
      }
    })();
  }

  private count(): void {
    this.statements++;
    realtimeStatementsTotal.inc({ kind: 'outbox' });
  }

  /** Waits for a pass under way (tests and shutdown). */
  async settle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async lastNumber(): Promise<number> {
    this.count();
    const result = await sql<{ l: string }>`select (case when is_called then last_value else 0 end)::text as l from appbuilder.event_seq`.execute(this.db.kysely);
    return Number(result.rows[0]?.l ?? 0);
  }

  private async pass(): Promise<void> {
    const last = await this.lastNumber();
    if (last <= this.cursor) return;
    const apps = this.options.wanted();
    if (apps.length === 0) {
      this.cursor = last;
      return;
    }
    const writers = await this.writersNow();
    for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
      if (this.closed) return;
      this.count();
      const result = await sql<EventRow & { ready: boolean }>`with s as (select pg_current_snapshot() as snap),
          w as (select coalesce(bool_and(pg_visible_in_snapshot(x, s.snap) or pg_xact_status(x) = 'aborted'), true) as ready
            from s left join unnest(cast(${writers} as xid8[])) x on true)
        select w.ready, e.seq::text as seq, e.application_id, e.name, e.payload, e.previous
        from w left join appbuilder.events e on w.ready and e.seq > ${this.cursor} and e.seq <= ${last}
          and e.application_id = any(cast(${apps} as uuid[]))
        order by e.seq`.execute(this.db.kysely);
      if (result.rows[0]?.ready) {
        this.cursor = last;
        const events = result.rows.filter((row) => row.seq !== null).map(toEvent);
        if (events.length > 0) await this.options.deliver(events);
        return;
      }
      // A writer of the outbox that may hold a lower number is still running.
      await sleep(wait);
    }
  }

  /**
   * The transactions (as 64-bit ids) of other sessions that hold a lock on `appbuilder.events` now.
   * pg_stat_activity gives 32-bit ids; each is widened against the snapshot's xmax, which is within
   * 2^31 of every running transaction.
   */
  private async writersNow(): Promise<string[]> {
    this.count();
    const result = await sql<{ xids: string[] | null; xmax: string }>`select array_agg(distinct a.backend_xid::text) as xids, pg_snapshot_xmax(pg_current_snapshot())::text as xmax
      from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'relation' and l.relation = cast('appbuilder.events' as regclass)
        and l.database = (select oid from pg_database where datname = current_database())
        and a.backend_xid is not null and a.pid <> pg_backend_pid()`.execute(this.db.kysely);
    const row = result.rows[0];
    if (!row?.xids?.length) return [];
    return row.xids.map((xid) => widen(BigInt(row.xmax), BigInt(xid)).toString());
  }

  /**
   * The changes of one application after `after` up to what this feed has handed on, or `reset`
   * when some of them are past `retentionSeconds` (or gone).
   */
  async replay(applicationId: string, after: number, retentionSeconds: number): Promise<ChangeEvent[] | 'reset'> {
    const upTo = this.cursor;
    if (after >= upTo) return [];
    this.count();
    const result = await sql<EventRow & { old: boolean }>`select e.seq::text as seq, e.application_id, e.name, e.payload, e.previous,
        e.created_at < now() - make_interval(secs => ${retentionSeconds}) as old
      from appbuilder.events e where e.application_id = ${applicationId} and e.seq >= ${after} and e.seq <= ${upTo}
      order by e.seq`.execute(this.db.kysely);
    const first = result.rows[0];
    // The last event the client saw must still be here and within the retention: else it may have missed some.
    if (!first || Number(first.seq) !== after || first.old) return 'reset';
    return result.rows.slice(1).map(toEvent);
  }

  private async listen(): Promise<void> {
    if (this.db.pglite) {
      this.unlisten = await this.db.pglite.listen(REALTIME_CHANNEL, () => this.kick());
      return;
    }
    await this.connect();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: listenUrlOf(this.db)!, application_name: 'appbuilder-realtime' });
    client.on('notification', () => this.kick());
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('connection ended')));
    await client.connect();
    await client.query(`listen ${REALTIME_CHANNEL}`);
    this.client = client;
  }

  private lost(client: pg.Client, error: Error): void {
    if (this.closed || this.client !== client) return;
    this.client = null;
    client.end().catch(() => {});
    this.options.logger?.warn({ err: error }, 'lost the LISTEN connection for realtime; the poll carries on, reconnecting');
    this.reconnect();
  }

  private reconnect(): void {
    this.retry = setTimeout(() => {
      if (this.closed) return;
      this.connect().then(
        () => this.kick(),
        () => this.reconnect(),
      );
    }, 1000);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.poll);
    clearTimeout(this.retry);
    await this.unlisten?.().catch(() => {});
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
    await this.settle();
  }
}
