// A database handle whose every statement runs in one transaction that is always rolled back:
// explain runs a generated app's real route handlers on it, so an explained write is judged by
// the same code and SQL as a real one and still changes nothing. The handlers open transactions
// of their own (`db.kysely.transaction().execute(work)`); here those become savepoints of the
// outer transaction, released or rolled back as the real transaction would commit or roll back.
import { sql, type ControlledTransaction, type Kysely } from 'kysely';
import type { Db } from '../storage/db.ts';
import type { ControlPlane } from '../storage/tables.ts';

type Work<T> = (trx: Kysely<ControlPlane>) => Promise<T>;

/** What `kysely.transaction()` answers: the builder's methods the code base calls. */
interface SavepointBuilder {
  execute<T>(work: Work<T>): Promise<T>;
  setIsolationLevel(): SavepointBuilder;
  setAccessMode(): SavepointBuilder;
}

function savepoints(trx: ControlledTransaction<ControlPlane>, handle: () => Kysely<ControlPlane>): SavepointBuilder {
  let next = 0;
  const builder: SavepointBuilder = {
    async execute<T>(work: Work<T>): Promise<T> {
      const name = sql.raw(`explain_${++next}`);
      await sql`savepoint ${name}`.execute(trx);
      try {
        const result = await work(handle());
        await sql`release savepoint ${name}`.execute(trx);
        return result;
      } catch (error) {
        await sql`rollback to savepoint ${name}`.execute(trx);
        throw error;
      }
    },
    // One transaction's isolation is the outer one's; nothing in the runtime asks for another.
    setIsolationLevel: () => builder,
    setAccessMode: () => builder,
  };
  return builder;
}

/**
 * Runs `work` with a handle on a transaction of `db` that is rolled back afterwards, whatever
 * `work` did or threw. While it runs, the transaction holds one connection (on PGlite, the only
 * one): `work` must use the handle it is given, never `db`.
 */
export async function withRolledBackDb<T>(db: Db, work: (rolledBack: Db) => Promise<T>): Promise<T> {
  const trx = await db.kysely.startTransaction().execute();
  // Kysely keeps its state in private fields: methods are called on the transaction itself.
  const handle: Kysely<ControlPlane> = new Proxy(trx, {
    get(target, property) {
      if (property === 'transaction') return () => savepoints(trx, () => handle);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const rolledBack: Db = {
    driver: db.driver,
    kysely: handle,
    pglite: db.pglite,
    connectionString: db.connectionString,
    statementTimeoutMs: db.statementTimeoutMs,
    connections: () => db.connections(),
    close: async () => undefined,
  };
  try {
    return await work(rolledBack);
  } finally {
    await trx.rollback().execute();
  }
}
