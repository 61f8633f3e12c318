/**
 * The `pg` connection under a Kysely executor, for the few protocol features Kysely does not
 * speak (`COPY … FROM STDIN`). The work travels as the "text" of one statement through the
 * executor, so it runs on the executor's own connection: inside a transaction, in that
 * transaction. prepared.ts recognises it and hands it the connection's client.
 */
import { CompiledQuery } from 'kysely';
import type pg from 'pg';
import type { Executor } from './db.ts';

/** A statement that is work on the raw client (recognised by the pool of prepared.ts). */
export class ClientWork {
  constructor(readonly run: (client: pg.ClientBase) => Promise<void>) {}
}

/** Runs `work` with the `pg` client of `executor`'s connection (PostgreSQL driver only). */
export async function withPgClient<T>(executor: Executor, work: (client: pg.ClientBase) => Promise<T>): Promise<T> {
  let result: T | undefined;
  const task = new ClientWork(async (client) => {
    result = await work(client);
  });
  // the compiled query's text is the task: PostgresConnection passes it to the client untouched
  await executor.executeQuery({ ...CompiledQuery.raw(''), sql: task as unknown as string });
  return result as T;
}
