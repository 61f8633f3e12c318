import pg from 'pg';
import { openPglite, openPostgres, type Db, type Driver } from '../../src/storage/db.ts';

const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * A fixed master key for every service a test starts (in this process or a child it spawns):
 * a service over PostgreSQL, or over a database handed to it, refuses to start without one (DESIGN §11).
 */
export const TEST_MASTER_KEY = Buffer.alloc(32, 0x5a).toString('base64');
process.env.APPBUILDER_MASTER_KEY ||= TEST_MASTER_KEY;
/** Services that tests start on a data directory (in children too) skip the disk syncs: speed, not durability, is what a test needs. */
process.env.APPBUILDER_EMBEDDED_FSYNC ||= 'off';

let postgresAnswers: Promise<boolean> | undefined;

/** Whether PostgreSQL answers; CI must have it, so there its absence is an error, not a skip. */
export function postgresAvailable(): Promise<boolean> {
  postgresAnswers ??= (async () => {
    const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 1500 });
    try {
      await client.connect();
      await client.query('select 1');
      return true;
    } catch (error) {
      if (process.env.CI) throw new Error(`PostgreSQL must answer in CI (${ADMIN_URL}): ${(error as Error).message}`);
      console.warn(`[tests] PostgreSQL at ${ADMIN_URL} does not answer; PostgreSQL tests are skipped here (CI runs them).`);
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return postgresAnswers;
}

/** The drivers to run integration tests against: PGlite always, PostgreSQL when it answers. */
export async function availableDrivers(): Promise<Driver[]> {
  return (await postgresAvailable()) ? ['pglite', 'postgres'] : ['pglite'];
}

export interface TestDatabase {
  db: Db;
  /** A connection string to the same database (postgres only), e.g. for a second process. */
  url: string | null;
  drop(): Promise<void>;
}

/**
 * A fresh database: an in-memory PGlite, or a new PostgreSQL database dropped afterwards.
 * `statementTimeoutMs`: the bound of the PostgreSQL handle (default: the service's default).
 */
export async function createTestDatabase(driver: Driver, options: { statementTimeoutMs?: number } = {}): Promise<TestDatabase> {
  if (driver === 'pglite') {
    const db = await openPglite(null);
    return { db, url: null, drop: () => db.close() };
  }
  const name = `appbuilder_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const db = await openPostgres(url.toString(), undefined, options.statementTimeoutMs);
  return {
    db,
    url: url.toString(),
    drop: async () => {
      await db.close();
      const cleanup = new pg.Client({ connectionString: ADMIN_URL });
      await cleanup.connect();
      // A closed pool resolves before its sockets are gone; a forced drop would then kill
      // backends whose clients are still closing, and they report that as an unhandled error.
      for (let i = 0; i < 100; i++) {
        const open = await cleanup.query('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
        if (open.rows[0].n === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await cleanup.query(`drop database if exists "${name}" with (force)`);
      await cleanup.end();
    },
  };
}
