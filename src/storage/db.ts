import { Kysely, PGliteDialect, PostgresDialect, sql, type QueryCompiler } from 'kysely';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { embeddedFsync, initialiseDataDir, pgliteOptions, syncNodeFiles } from './pglite.ts';
import { preparingPool } from './prepared.ts';
import { RawFirstQueryCompiler } from './raw-compiler.ts';
import type { ControlPlane } from './tables.ts';

export type Driver = 'pglite' | 'postgres';

/**
 * The one database handle. Both drivers speak the PostgreSQL dialect, so every
 * query above this layer is written once.
 */
export interface Db {
  readonly driver: Driver;
  readonly kysely: Kysely<ControlPlane>;
  /** The embedded instance when `driver` is `pglite` (pg-boss needs it); else null. */
  readonly pglite: PGlite | null;
  /** The connection string when `driver` is `postgres`; else null. */
  readonly connectionString: string | null;
  /**
   * A direct connection to PostgreSQL for LISTEN and the job queue when `connectionString` goes
   * through a pooler (APPBUILDER_LISTEN_DATABASE_URL); absent: `connectionString` (`listenUrlOf`).
   */
  readonly listenConnectionString?: string | null;
  /** The statement timeout of this handle's connections in ms (0: none; PGlite: none, see README). */
  readonly statementTimeoutMs: number;
  /** The pool's connections now (`pg`); null on PGlite, which has one connection. */
  connections(): { open: number; idle: number; waiting: number } | null;
  close(): Promise<void>;
}

/** Where LISTEN connections and the job queue connect: the direct connection, else the pool's. */
export function listenUrlOf(db: Db): string | null {
  return db.listenConnectionString ?? db.connectionString;
}

/** What stands between the pool and PostgreSQL (APPBUILDER_DATABASE_POOLER, docs/scaling.md). */
export type Pooler = 'none' | 'session' | 'transaction';

export interface PostgresOptions {
  pooler?: Pooler;
  /** APPBUILDER_LISTEN_DATABASE_URL: a direct connection for LISTEN and the job queue. */
  listenConnectionString?: string | null;
}

/** APPBUILDER_STATEMENT_TIMEOUT's default: no statement of a request runs longer (DESIGN §6). */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;

/**
 * Lifts the statement timeout for the rest of the transaction `executor` runs: deployments and
 * control-plane migrations may convert millions of rows, and their lease (jobs) or the operator
 * (startup) bounds them instead. Harmless on PGlite.
 */
export async function withoutStatementTimeout(executor: Kysely<ControlPlane>): Promise<void> {
  await sql`set local statement_timeout = 0`.execute(executor);
}

// Both drivers hand back `bigint`/`numeric` as strings; count(*) and friends are
// always small enough for a JS number, so parse int8 as a number on `pg`.
pg.types.setTypeParser(20, (value) => Number(value));

/** The dialects with the compiler of raw-compiler.ts. */
class Pglite extends PGliteDialect {
  override createQueryCompiler(): QueryCompiler {
    return new RawFirstQueryCompiler();
  }
}

class Postgres extends PostgresDialect {
  override createQueryCompiler(): QueryCompiler {
    return new RawFirstQueryCompiler();
  }
}

/**
 * The embedded store. `fsync` (default: APPBUILDER_EMBEDDED_FSYNC, on unless `off`) makes each
 * commit durable across a power loss; an in-memory instance has nothing to sync.
 */
export async function openPglite(dataDir: string | null, fsync = embeddedFsync()): Promise<Db> {
  const { PGlite } = await import('@electric-sql/pglite');
  // Sized for one process, a new data directory made in a child (pglite.ts).
  const durable = fsync && dataDir !== null;
  const options = pgliteOptions(PGlite, durable);
  if (dataDir) await initialiseDataDir(dataDir);
  const pglite = dataDir ? new PGlite(dataDir, options) : new PGlite(options);
  await pglite.waitReady;
  if (durable) syncNodeFiles(pglite);
  const kysely = new Kysely<ControlPlane>({ dialect: new Pglite({ pglite }) });
  return {
    driver: 'pglite',
    kysely,
    pglite,
    connectionString: null,
    // PGlite runs statements on this thread, without timers: statement_timeout has no effect there.
    statementTimeoutMs: 0,
    connections: () => null,
    close: async () => {
      await kysely.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}

/**
 * A `pg` pool. `statementTimeoutMs` (APPBUILDER_STATEMENT_TIMEOUT; 0: none) bounds every
 * statement; the transactions that must run longer lift it (`withoutStatementTimeout`). Straight
 * to PostgreSQL it is set on every connection as it opens (a startup parameter), without a round
 * trip per request. Behind a pooler (`options.pooler`), which refuses startup parameters and
 * hands one server connection to many clients, each transaction sets it (`set local`, in the
 * round trip of its `begin`), and a statement outside a transaction gets one of its own
 * (prepared.ts). In transaction mode no named prepared statement is used either: another
 * client's connection could meet it.
 */
export async function openPostgres(
  connectionString: string,
  maxConnections = 10,
  statementTimeoutMs = DEFAULT_STATEMENT_TIMEOUT_MS,
  options: PostgresOptions = {},
): Promise<Db> {
  const pooler = options.pooler ?? 'none';
  const startupTimeout = pooler === 'none' && statementTimeoutMs > 0;
  const pool = new pg.Pool({ connectionString, max: maxConnections, ...(startupTimeout ? { statement_timeout: statementTimeoutMs } : {}) });
  // An idle client whose backend goes away (server restart, terminated session) must not
  // crash the process: the pool drops it and the next query opens a new connection.
  pool.on('error', (error) => console.error(`appbuilder: idle PostgreSQL connection lost: ${error.message}`));
  // Marked statements (the generated reads) run as named prepared statements: prepared.ts.
  const wrapped = preparingPool(pool, statementTimeoutMs, { prepare: pooler !== 'transaction', localTimeout: pooler !== 'none' });
  const kysely = new Kysely<ControlPlane>({ dialect: new Postgres({ pool: wrapped }) });
  await sql`select 1`.execute(kysely);
  return {
    driver: 'postgres',
    kysely,
    pglite: null,
    connectionString,
    listenConnectionString: options.listenConnectionString ?? null,
    statementTimeoutMs,
    connections: () => ({ open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => kysely.destroy(),
  };
}

/** What queries run on: the handle itself or a transaction of it. */
export type Executor = Kysely<ControlPlane>;
