import { sql } from 'kysely';
import type { Db } from '../../storage/db.ts';
import { PREPARED } from '../../storage/prepared.ts';
import type { JobLogger, JobQueue } from '../../jobs/queue.ts';
import type { DeploymentRegistry, ServedApp } from '../registry.ts';
import { MAIL_EVENT, MAIL_QUEUE, type MailJob } from './mail.ts';
import { newestActiveVersionSql, triggersFor, uuidFrom } from './triggers.ts';

/** The queue of deliveries: one job per (event, trigger it fires). */
export const EVENT_QUEUE = 'app-event';

/** What a delivery job carries; the event itself stays in the outbox row. */
export interface DeliveryJob {
  eventId: string;
  applicationId: string;
  /** The version that handled the application's events when the event was dispatched. */
  serverVersion: string;
  triggerId: string;
}

const BATCH = 100;
/**
 * Under a steady stream of commits, passes are at least this far apart: one pass then takes the
 * rows of many commits instead of two statements per commit.
 */
const PASS_INTERVAL_MS = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Moves committed outbox rows (`appbuilder.events` with `dispatched_at` null) onto the queue.
 * For each event it looks up the triggers it fires in the version that handles the
 * application's events (its newest active deployment) and sends one job per trigger, its id
 * fixed by (event, trigger); then it marks the rows dispatched. A crash between the two sends
 * the rows again, and pg-boss keeps one job per id: delivery is at least once, never doubled
 * by a resend. Events that fire no trigger are marked without a job.
 */
export class EventDispatcher {
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly queue: JobQueue,
    private readonly registry: DeploymentRegistry,
    private readonly logger: JobLogger,
  ) {}

  /** Dispatches soon; calls while a pass runs fold into one more pass. Never throws. */
  kick(): void {
    void this.dispatch();
  }

  /** Dispatches every pending row; resolves when none is left (or a pass failed, logged). */
  dispatch(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        for (;;) {
          this.again = false;
          while (!this.stopped && (await this.dispatchBatch()) === BATCH);
          if (!this.again || this.stopped) break;
          await sleep(PASS_INTERVAL_MS);
        }
      } catch (error) {
        this.logger.error({ err: error }, 'event dispatch failed; the poll tries again');
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  /** Stops taking kicks and waits for a pass under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  /** Forgets dispatched rows older than `days` (their deliveries are long settled). */
  async purge(days: number): Promise<number> {
    const result = await sql`delete from appbuilder.events where dispatched_at < now() - make_interval(days => ${days})`.execute(this.db.kysely);
    return Number(result.numAffectedRows ?? 0);
  }

  private async dispatchBatch(): Promise<number> {
    // Each row with the version that handles its application's events now (one statement).
    const result = await sql<{ id: string; application_id: string; name: string; payload: Record<string, unknown>; version: string | null }>`${sql.raw(PREPARED)}
      select e.id, e.application_id, e.name, e.payload, ${newestActiveVersionSql(sql.raw('e.application_id'))} as version
      from appbuilder.events e where e.dispatched_at is null order by e.created_at limit ${BATCH}`.execute(this.db.kysely);
    const rows = result.rows;
    if (rows.length === 0) return 0;
    const served = new Map<string, ServedApp | null>();
    for (const row of rows) {
      // A mail of email.send: one send job, whatever is served now (its run committed already).
      if (row.name === MAIL_EVENT) {
        const job: MailJob = { eventId: row.id, applicationId: row.application_id };
        await this.queue.send(MAIL_QUEUE, { ...job }, { id: uuidFrom(row.id, MAIL_QUEUE) });
        continue;
      }
      const version = row.version;
      if (!version) continue;
      if (!served.has(row.application_id)) served.set(row.application_id, await this.registry.resolve(row.application_id, version));
      const app = served.get(row.application_id);
      if (!app) continue;
      for (const trigger of triggersFor(app.compiled.definition, { name: row.name, payload: row.payload })) {
        const job: DeliveryJob = { eventId: row.id, applicationId: row.application_id, serverVersion: version, triggerId: trigger.trigger.id };
        await this.queue.send(EVENT_QUEUE, { ...job }, { id: uuidFrom(row.id, trigger.trigger.id) });
      }
    }
    // One array parameter, so the statement text is the same for every batch (prepared once per connection).
    await sql`${sql.raw(PREPARED)}update appbuilder.events set dispatched_at = now() where id = any(cast(${rows.map((row) => row.id)} as uuid[]))`.execute(this.db.kysely);
    return rows.length;
  }
}
