// Reused query plans on `pg` (DESIGN §3): a statement whose text starts with `PREPARED` runs as a
// named prepared statement of the connection, so PostgreSQL parses it once per connection and,
// after a few executions, may keep one generic plan instead of planning every call (measured
// here: a point read with its embedded user ~1.8× the rate of the same text unnamed). Only the
// generated read statements carry the mark: their text depends on the statement's shape, never
// on values. `plan_cache_mode` stays `auto`, so PostgreSQL keeps planning per call where a
// generic plan would cost more (a `limit $n` over a large table). Each connection keeps at most
// `MAX_PER_CONNECTION` statements and deallocates the least recently used. PGlite ignores the
// mark (a comment).
import pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';

export const PREPARED = '/* prepared */ ';

const MAX_PER_CONNECTION = 200;

/** The statements one connection has prepared: text → name, least recently used first. */
interface Prepared {
  names: Map<string, string>;
  next: number;
}

/** What pg keeps about parsed statements (internal; cleared best-effort when one is deallocated). */
interface ConnectionInternals {
  connection?: { parsedStatements?: Record<string, unknown>; submittedNamedStatements?: Record<string, unknown> };
}

async function runPrepared(client: pg.PoolClient, state: Prepared, text: string, values: readonly unknown[]) {
  let name = state.names.get(text);
  if (name !== undefined) {
    state.names.delete(text);
  } else {
    if (state.names.size >= MAX_PER_CONNECTION) {
      const [oldText, oldName] = state.names.entries().next().value!;
      state.names.delete(oldText);
      await client.query(`deallocate "${oldName}"`);
      const internals = (client as unknown as ConnectionInternals).connection;
      delete internals?.parsedStatements?.[oldName];
      delete internals?.submittedNamedStatements?.[oldName];
    }
    // Names are never reused, so a statement pg still believes parsed is never asked for again.
    name = `appbuilder_${state.next++}`;
  }
  state.names.set(text, name);
  return new Promise<pg.QueryResult>((resolve, reject) => {
    // Built from the text, then named: pg copies a config object property by property (a
    // measurable share of a statement's CPU time); a text is taken as it is.
    const query = new pg.Query(text, [...values], (error: Error | undefined, result: pg.QueryResult) => (error ? reject(error) : resolve(result)));
    (query as unknown as { name: string }).name = name;
    client.query(query);
  });
}

/** A pool for Kysely's PostgresDialect whose clients run marked statements as named prepared statements. */
export function preparingPool(pool: pg.Pool): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    const state: Prepared = { names: new Map(), next: 1 };
    const wrapped = {
      get processID() {
        return (client as unknown as { processID?: number }).processID;
      },
      query(text: unknown, values?: readonly unknown[]) {
        if (typeof text === 'string' && text.startsWith(PREPARED)) return runPrepared(client, state, text, values ?? []);
        return (client.query as (...args: unknown[]) => unknown)(text, values);
      },
      release: (destroy?: boolean) => client.release(destroy),
    };
    return wrapped as unknown as PostgresPoolClient;
  };
  return {
    Client: (pool as unknown as { Client: PostgresPool['Client'] }).Client,
    options: pool.options,
    connect: async () => {
      const client = await pool.connect();
      let wrapped = clients.get(client);
      if (!wrapped) {
        wrapped = wrap(client);
        clients.set(client, wrapped);
      }
      return wrapped;
    },
    end: () => pool.end(),
  };
}
