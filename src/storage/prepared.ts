// Reused query plans on `pg` (DESIGN §3): a statement whose text starts with `PREPARED` runs as a
// named prepared statement of the connection, so PostgreSQL parses it once per connection and,
// after a few executions, may keep one generic plan instead of planning every call (measured
// here: a point read with its embedded user ~1.8× the rate of the same text unnamed). Only the
// generated read statements carry the mark: their text depends on the statement's shape, never
// on values. `plan_cache_mode` stays `auto`, so PostgreSQL keeps planning per call where a
// generic plan would cost more (a `limit $n` over a large table). Each connection keeps at most
// `MAX_PER_CONNECTION` statements and deallocates the least recently used. PGlite ignores the
// mark (a comment), and so does a pool behind a transaction-mode pooler (PgBouncer before 1.21
// keeps no prepared statement per client: another client's server connection could meet one).
import pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { Problem } from '../errors.ts';
import { ClientGoneError, currentScope, type Cancellable } from './request-scope.ts';
import { ClientWork } from './raw-client.ts';

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

/** What a `pg` client knows of its connection (processID is used by Kysely too; secretKey is pg's). */
interface Backend {
  processID: number | null;
  secretKey: number | null;
}

/** The short-lived connection of `Client#cancel`, used directly (host, port and socket options parsed by pg). */
interface CancelConnection {
  host: string;
  port: number;
  connection: {
    on(event: 'connect' | 'error', listener: () => void): void;
    connect(port: number | string, host?: string): void;
    cancel(processID: number, secretKey: number): void;
  };
}

/**
 * PostgreSQL's cancel request for `client`'s backend: a new connection that sends only the
 * backend's process id and secret key (no login), as pg's `Client#cancel` does. It cancels
 * whatever that backend runs when it arrives, or nothing if it is idle.
 */
function sendCancel(pool: pg.Pool, client: pg.PoolClient): void {
  const { processID, secretKey } = client as unknown as Backend;
  if (processID === null || secretKey === null) return;
  const { host, port, connection } = new pg.Client(pool.options) as unknown as CancelConnection;
  connection.on('error', () => {});
  connection.on('connect', () => connection.cancel(processID, secretKey));
  if (host && host.startsWith('/')) connection.connect(`${host}/.s.PGSQL.${port}`);
  else connection.connect(port, host);
}

/** How often a cancel is sent again while the statement has not ended (one can arrive between two steps). */
const CANCEL_REPEAT_MS = 100;
const CANCEL_ATTEMPTS = 50;

/**
 * The 503 a statement past `statement_timeout` answers (SQLSTATE 57014). The connection is
 * usable again at once: PostgreSQL ends only the statement (and Kysely rolls back its transaction).
 */
function timedOut(error: unknown, statementTimeoutMs: number): unknown {
  if ((error as { code?: string }).code !== '57014' || error instanceof ClientGoneError) return error;
  const reason = /statement timeout/.test((error as Error).message ?? '')
    ? `The request took longer than the statement timeout of ${statementTimeoutMs} ms (APPBUILDER_STATEMENT_TIMEOUT) and was stopped.`
    : 'The request\'s statement was cancelled by the database.';
  return new Problem(503, reason, [], 'https://appbuilder.dev/problems/statement-timeout');
}

/** How the pool meets PostgreSQL (db.ts `openPostgres`). */
export interface PoolMode {
  /** Marked statements run as named prepared statements (never behind a transaction-mode pooler). */
  prepare: boolean;
  /** The statement timeout is set inside each transaction (`set local`) rather than on the connection (behind a pooler). */
  localTimeout: boolean;
}

const BEGIN = /^\s*(begin|start\s+transaction)\b/i;
const END = /^\s*(commit|rollback|end|abort)\s*;?\s*$/i;

/**
 * `statement` with the statement timeout set by `set local` inside every transaction of `client`:
 * a `begin` carries it in the same round trip (both as one simple query), and a statement outside
 * a transaction is given one of its own (`begin` and the bound, the statement, `commit`). Nothing
 * outlives the transaction, so the pooler may hand the server connection to anyone next.
 */
function localTimeout(client: pg.PoolClient, ms: number, statement: (text: unknown, values?: readonly unknown[]) => Promise<unknown>) {
  const query = client.query.bind(client) as (text: string) => Promise<unknown>;
  const bound = `set local statement_timeout = ${Math.floor(ms)}`;
  let inTransaction = false;
  return async (text: unknown, values?: readonly unknown[]): Promise<unknown> => {
    if (typeof text === 'string' && BEGIN.test(text) && !(values && values.length > 0)) {
      const results = (await query(`${text}; ${bound}`)) as unknown[];
      inTransaction = true;
      return results[0];
    }
    if (typeof text === 'string' && END.test(text)) {
      inTransaction = false;
      return statement(text, values);
    }
    if (inTransaction) return statement(text, values);
    await query(`begin; ${bound}`);
    let result: unknown;
    try {
      result = await statement(text, values);
    } catch (error) {
      await query('rollback').catch(() => undefined);
      throw error;
    }
    await query('commit');
    return result;
  };
}

/**
 * A pool for Kysely's PostgresDialect whose clients run marked statements as named prepared
 * statements, and whose statements belong to the request running them (request-scope.ts): a
 * request whose client went away has them cancelled, and a statement past the statement
 * timeout answers 503.
 */
export function preparingPool(pool: pg.Pool, statementTimeoutMs = 0, mode: PoolMode = { prepare: true, localTimeout: false }): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    const state: Prepared = { names: new Map(), next: 1 };
    /** A cancel was sent for this connection: it leaves the pool when released, so a late cancel hits nobody else. */
    let cancelled = false;
    const statement = (text: unknown, values?: readonly unknown[]): Promise<unknown> => {
      if (typeof text === 'string' && text.startsWith(PREPARED) && mode.prepare) return runPrepared(client, state, text, values ?? []);
      // work on the client itself (raw-client.ts: COPY), answered as a statement without rows
      if (text instanceof ClientWork) return text.run(client).then(() => ({ command: 'COPY', rowCount: 0, rows: [] }));
      return (client.query as (...args: unknown[]) => Promise<unknown>)(text, values);
    };
    const bound = mode.localTimeout && statementTimeoutMs > 0 ? localTimeout(client, statementTimeoutMs, statement) : null;
    const run = bound ?? statement;
    const wrapped = {
      get processID() {
        return (client as unknown as { processID?: number }).processID;
      },
      query(text: unknown, values?: readonly unknown[]) {
        const scope = currentScope();
        if (!scope) return run(text, values).catch((error: unknown) => Promise.reject(timedOut(error, statementTimeoutMs)));
        // A rollback still runs for a request whose client left: the transaction must end.
        if (scope.closed && !(typeof text === 'string' && text === 'rollback')) return Promise.reject(new ClientGoneError());
        let repeat: NodeJS.Timeout | undefined;
        const statement: Cancellable = {
          cancel: () => {
            cancelled = true;
            let attempts = 0;
            sendCancel(pool, client);
            repeat = setInterval(() => {
              if (++attempts >= CANCEL_ATTEMPTS) clearInterval(repeat);
              sendCancel(pool, client);
            }, CANCEL_REPEAT_MS);
          },
        };
        const settled = () => {
          scope.running.delete(statement);
          clearInterval(repeat);
        };
        scope.running.add(statement);
        return run(text, values).then(
          (result) => {
            settled();
            return result;
          },
          (error: unknown) => {
            settled();
            return Promise.reject(timedOut(error, statementTimeoutMs));
          },
        );
      },
      release: (destroy?: boolean) => client.release(destroy || cancelled),
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
