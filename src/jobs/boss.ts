import { PgBoss, fromPglite } from 'pg-boss';
import { listenUrlOf, type Db } from '../storage/db.ts';

/** How often pg-boss looks at things; short values are for tests only. */
export interface BossTiming {
  /**
   * How often an idle worker asks for a job when no notice woke it (pg-boss minimum 0.5). Only
   * the fallback: a sent job wakes its workers through LISTEN/NOTIFY. It catches what no notice
   * announces, such as a retry whose delay has passed (default `DEFAULT_FALLBACK_POLL_SECONDS`).
   */
  pollingIntervalSeconds?: number;
  /** How often the supervisor runs; expired and heartbeat-less jobs are failed (retried) there. */
  superviseIntervalSeconds?: number;
  /** How often each queue is checked for expired jobs within a supervise pass. */
  monitorIntervalSeconds?: number;
  /** How often schedules are checked for a due tick (pg-boss 1–45, default 30); a tick is still one per minute at most. */
  cronMonitorIntervalSeconds?: number;
  /** How often a due tick is turned into its job (pg-boss 1–45, default 5). */
  cronWorkerIntervalSeconds?: number;
}

export interface BossOptions extends BossTiming {
  /** Schema of pg-boss's own tables. */
  schema?: string;
  /** Whether this process runs cron schedules (every process may; pg-boss elects one per pass). */
  schedule?: boolean;
}

export const DEFAULT_BOSS_SCHEMA = 'pgboss';

/** The fallback poll of an idle worker (see `BossTiming.pollingIntervalSeconds`). */
export const DEFAULT_FALLBACK_POLL_SECONDS = 5;

/**
 * A pg-boss instance over the one database. PGlite goes through pg-boss's own adapter
 * (`backend: 'pglite'`), sharing the instance with Kysely: PGlite has one connection, and
 * Kysely's transactions lock it exclusively, so pg-boss statements queue behind them rather
 * than landing inside them. PostgreSQL gets a small pool of pg-boss's own.
 */
export function createBoss(db: Db, options: BossOptions = {}): PgBoss {
  // On PostgreSQL, where workers are separate processes, a job whose worker died (its heartbeat
  // stopped) is found within ~10 s rather than pg-boss's default pass of 60 s.
  const supervise = db.pglite ? {} : { superviseIntervalSeconds: 10, monitorIntervalSeconds: 10 };
  const common = {
    ...supervise,
    schema: options.schema ?? DEFAULT_BOSS_SCHEMA,
    schedule: options.schedule ?? true,
    // Each process LISTENs on pg-boss's channel; a job sent to a queue created with `notify`
    // wakes that queue's workers in every process at once (DESIGN §8). PGlite delivers in-process.
    useListenNotify: true,
    ...(options.superviseIntervalSeconds ? { superviseIntervalSeconds: options.superviseIntervalSeconds } : {}),
    ...(options.monitorIntervalSeconds ? { monitorIntervalSeconds: options.monitorIntervalSeconds } : {}),
    ...(options.cronMonitorIntervalSeconds ? { cronMonitorIntervalSeconds: options.cronMonitorIntervalSeconds } : {}),
    ...(options.cronWorkerIntervalSeconds ? { cronWorkerIntervalSeconds: options.cronWorkerIntervalSeconds } : {}),
  };
  if (db.pglite) {
    return new PgBoss({ ...common, db: fromPglite(db.pglite), backend: 'pglite' });
  }
  // On the direct connection (APPBUILDER_LISTEN_DATABASE_URL) when the pool goes through a pooler: it LISTENs.
  const connectionString = listenUrlOf(db);
  if (!connectionString) throw new Error('The job queue needs a PGlite instance or a PostgreSQL connection string.');
  return new PgBoss({ ...common, connectionString, max: 4, application_name: 'appbuilder-jobs' });
}
