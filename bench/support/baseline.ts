// What the two hand-written baselines share: the app's end-user signing key (the same tokens as the
// generated API), their database handle on either driver (a `pg` pool of ten on PostgreSQL, the
// platform's own PGlite instance on PGlite) and the to-do's own fields as the generated API
// answers them.
import type { PGlite, Transaction } from '@electric-sql/pglite';
import pg from 'pg';
import { AppKeys } from '../../src/runtime/app-keys.ts';
import { loadMasterKey } from '../../src/secrets/master-key.ts';
import type { Db, Driver } from '../../src/storage/db.ts';
import type { TestPlatform } from '../../test/support/platform.ts';

export type Row = Record<string, unknown>;
export type Query = (text: string, values: unknown[]) => Promise<Row[]>;
/** Runs `work` in one transaction. */
export type InTransaction = <T>(work: (query: Query) => Promise<T>) => Promise<T>;

export interface BaselineDatabase {
  /** One statement, outside any transaction. */
  query: Query;
  inTransaction: InTransaction;
  close(): Promise<void>;
}

function onPool(pool: pg.Pool): BaselineDatabase {
  return {
    query: async (text, values) => (await pool.query(text, values)).rows,
    inTransaction: async (work) => {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const result = await work(async (text, values) => (await client.query(text, values)).rows);
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

function onPglite(pglite: PGlite): BaselineDatabase {
  return {
    query: async (text, values) => (await pglite.query<Row>(text, values)).rows,
    inTransaction: (work) => pglite.transaction((tx: Transaction) => work(async (text, values) => (await tx.query<Row>(text, values)).rows)),
    close: async () => undefined,
  };
}

/** The key the platform signs the app's end-user tokens with. */
export async function endUserKey(db: Db, applicationId: string): Promise<Uint8Array> {
  // The bench hands the platform its database, so the platform's key is the store's or the configured one.
  const { key } = await loadMasterKey(db, { configured: process.env.APPBUILDER_MASTER_KEY ?? null, configuredFile: null, dataDirKeyFile: null });
  return new AppKeys(db, key).signingKey(applicationId);
}

/** The baseline's database: the platform's own on either driver. */
export function baselineDatabase(driver: Driver, t: TestPlatform): BaselineDatabase {
  if (driver === 'postgres') return onPool(new pg.Pool({ connectionString: t.database.url!, max: 10 }));
  return onPglite(t.platform.db.pglite!);
}

/** A to-do row's own fields in the generated API's order and form (deadline as ISO text); `user` is the caller's to add. */
export function todoFields(row: Row) {
  const deadline = row.deadline as Date | null;
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    deadline: deadline === null ? null : deadline.toISOString(),
    status: row.status,
  };
}
