/**
 * Behind PgBouncer in transaction mode (issue 45, DESIGN §8): a PgBouncer of the test's own in
 * front of PostgreSQL, the service told so (`APPBUILDER_DATABASE_POOLER=transaction`) with its
 * LISTEN connections and job queue on the direct one (`APPBUILDER_LISTEN_DATABASE_URL`).
 *
 * - The handle: the statement timeout still bounds a statement, inside a transaction and out of
 *   one, and nothing of it outlives the transaction on the shared server connection; two handles
 *   (two processes) running the marked read statements concurrently never meet each other's
 *   named statement (straight through PgBouncer with them on, they do).
 * - The processes (api, two runtimes, a worker): a publish reaches both runtimes, 200 concurrent
 *   reads and writes answer no 5xx, a logout everywhere through one runtime is seen by the other,
 *   a request held past the statement timeout answers 503, and an unpublish stops both runtimes.
 */
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, withoutStatementTimeout, type Db } from '../../src/storage/db.ts';
import { PREPARED } from '../../src/storage/prepared.ts';
import { Problem } from '../../src/errors.ts';
import { schemaNameForApp, tableNameForModel } from '../../src/definition/naming.ts';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../support/databases.ts';
import { startPgBouncer, type PgBouncer } from '../support/pgbouncer.ts';
import { ApiClient } from '../support/client.ts';
import { BOOTSTRAP } from '../support/platform.ts';
import { todoScode } from '../support/examples.ts';
import type { AppReply } from '../support/tenant.ts';
import { startServe, type ServeProcess } from './serve-processes.ts';

const hasPostgres = await postgresAvailable();
const bouncer = hasPostgres ? await startPgBouncer('transaction') : { skipped: 'PostgreSQL does not answer' };
const skipped = 'skipped' in bouncer ? bouncer.skipped : null;
if (skipped) console.warn(`[tests] behind PgBouncer: ${skipped}; skipped (CI has it).`);
const pgbouncer = (skipped ? null : bouncer) as PgBouncer | null;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(skipped !== null)('behind PgBouncer in transaction mode', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  }, 60_000);
  afterAll(async () => {
    await database?.drop();
    await pgbouncer?.stop();
  }, 60_000);

  describe('the database handle', () => {
    let pooled: Db;
    beforeAll(async () => {
      pooled = await openPostgres(pgbouncer!.through(database.url!), 4, 300, { pooler: 'transaction' });
    });
    afterAll(async () => {
      await pooled?.close();
    });

    it('bounds a statement outside a transaction and inside one (503), and lifts the bound where asked', async () => {
      const autocommit = await sql`select pg_sleep(2)`.execute(pooled.kysely).then(() => null, (error: unknown) => error);
      expect(autocommit).toBeInstanceOf(Problem);
      expect((autocommit as Problem).status).toBe(503);
      const inside = await pooled.kysely
        .transaction()
        .execute(async (trx) => sql`select pg_sleep(2)`.execute(trx))
        .then(() => null, (error: unknown) => error);
      expect((inside as Problem).status).toBe(503);
      const lifted = await pooled.kysely.transaction().execute(async (trx) => {
        await withoutStatementTimeout(trx);
        return sql<{ ok: number }>`select 1 as ok from pg_sleep(0.5)`.execute(trx);
      });
      expect(lifted.rows).toEqual([{ ok: 1 }]);
      // Nothing outlives the transaction: a plain client through the same PgBouncer has no bound.
      const plain = new pg.Client({ connectionString: pgbouncer!.through(database.url!) });
      await plain.connect();
      try {
        for (let i = 0; i < 5; i++) expect((await plain.query('show statement_timeout')).rows[0].statement_timeout).toBe('0');
      } finally {
        await plain.end();
      }
    });

    it('runs the marked statements of two processes side by side without meeting a named statement', async () => {
      const other = await openPostgres(pgbouncer!.through(database.url!), 4, 300, { pooler: 'transaction' });
      try {
        // Two shapes with other parameter counts, as two processes' first statements would be named alike.
        const one = (db: Db, i: number) => sql.raw(`${PREPARED}select ${i}::int + 0 as n`).execute(db.kysely);
        const two = (db: Db, i: number) => sql<{ n: number }>`${sql.raw(PREPARED)}select ${i}::int + ${1}::int + ${2}::int as n`.execute(db.kysely);
        const runs = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => (i % 2 ? one(pooled, i) : two(other, i))));
        expect(runs.filter((r) => r.status === 'rejected')).toEqual([]);
      } finally {
        await other.close();
      }
      // The same statements with named statements on (pooler `none`) through PgBouncer: they meet.
      const naive = [await openPostgres(pgbouncer!.through(database.url!), 4, 0), await openPostgres(pgbouncer!.through(database.url!), 4, 0)];
      try {
        const runs = await Promise.allSettled(
          Array.from({ length: 200 }, (_, i) =>
            i % 2
              ? sql.raw(`${PREPARED}select ${i % 7}::int as n`).execute(naive[0].kysely)
              : sql`${sql.raw(PREPARED)}select ${i}::int + ${1}::int as n`.execute(naive[1].kysely),
          ),
        );
        expect(runs.some((r) => r.status === 'rejected')).toBe(true);
      } finally {
        for (const db of naive) await db.close();
      }
    });
  });

  describe('api, two runtimes and a worker', () => {
    let api: ServeProcess;
    let runtimes: ServeProcess[] = [];
    let worker: ServeProcess;
    let client: ApiClient;
    let app: AppReply;

    const env = () => ({ APPBUILDER_DATABASE_POOLER: 'transaction', APPBUILDER_LISTEN_DATABASE_URL: database.url!, APPBUILDER_STATEMENT_TIMEOUT: '1000' });
    const base = (runtime: ServeProcess) => `${runtime.url}/apps/${app.id}/api/v${app.serverVersion}`;
    const call = async (runtime: ServeProcess, method: string, path: string, token: string | null, body?: unknown) => {
      const headers: Record<string, string> = {};
      if (token) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const reply = await fetch(base(runtime) + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await reply.text();
      return { status: reply.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
    };
    const until = async (check: () => Promise<boolean>, what: string, timeoutMs = 30_000) => {
      const start = performance.now();
      while (!(await check())) {
        if (performance.now() - start > timeoutMs) throw new Error(`${what}: not after ${timeoutMs} ms`);
        await sleep(20);
      }
      return performance.now() - start;
    };
    const signup = async (runtime: ServeProcess, name: string) => {
      const reply = await call(runtime, 'POST', '/auth/signup', null, { name, email: `${name.toLowerCase()}@example.test`, password: 'correct horse' });
      expect(reply.status).toBe(201);
      return reply.body as { token: string; user: { id: string } };
    };

    beforeAll(async () => {
      const url = pgbouncer!.through(database.url!);
      api = await startServe('api', url, env());
      runtimes = await Promise.all([startServe('runtime', url, env()), startServe('runtime', url, env())]);
      worker = await startServe('worker', url, env());
      const admin = await ApiClient.login(api.url, { apiKey: BOOTSTRAP.id, secret: BOOTSTRAP.secret });
      const customer = await admin.post<{ apiClient: { apiKey: string; secret: string } }>('/v1/customers', { name: 'Pooled' });
      client = await ApiClient.login(api.url, customer.body.apiClient);
      const project = await client.post<{ id: string }>('/v1/projects', { name: 'Pooled project' });
      const created = await client.post<AppReply>('/v1/applications', { projectId: project.body.id, name: 'To-do', scode: todoScode() });
      expect(created.status).toBe(201);
      app = created.body;
    }, 300_000);
    afterAll(async () => {
      for (const p of [worker, ...runtimes, api]) if (p) await p.stop().catch(() => null);
    }, 60_000);

    it('serves a publish on both runtimes, answers 200 concurrent reads and writes without a 5xx, and stops both on an unpublish', async () => {
      const start = performance.now();
      expect((await client.post(`/v1/applications/${app.id}/publish`, {})).status).toBe(202);
      await Promise.all(runtimes.map((runtime) => until(async () => (await call(runtime, 'GET', '/toDos?limit=1', null)).status !== 404, 'publish reaches runtime')));
      console.log(`[pooler] publish → both runtimes serve: ${(performance.now() - start).toFixed(0)} ms`);

      const users = await Promise.all(runtimes.map((runtime, i) => signup(runtime, `Pooled${i}`)));
      const requests = Array.from({ length: 200 }, (_, i) => {
        const runtime = runtimes[i % 2];
        const user = users[(i >> 1) % 2];
        return i % 4 === 0
          ? call(runtime, 'POST', '/toDos', user.token, { title: `pooled ${i}`, status: 'open', user: user.user.id })
          : call(runtime, 'GET', '/toDos?limit=5', user.token);
      });
      const answers = await Promise.all(requests);
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s >= 500)).toEqual([]);
      expect(statuses.filter((s) => s === 201)).toHaveLength(50);
      expect(statuses.filter((s) => s === 200)).toHaveLength(150);

      const stopAt = performance.now();
      expect((await client.post(`/v1/applications/${app.id}/unpublish`, {})).status).toBe(200);
      await Promise.all(runtimes.map((runtime) => until(async () => (await call(runtime, 'GET', '/toDos?limit=1', null)).status === 404, 'unpublish reaches runtime')));
      console.log(`[pooler] unpublish → both runtimes stop: ${(performance.now() - stopAt).toFixed(0)} ms`);
      expect((await client.post(`/v1/applications/${app.id}/publish`, {})).status).toBe(202);
      await Promise.all(runtimes.map((runtime) => until(async () => (await call(runtime, 'GET', '/toDos?limit=1', null)).status !== 404, 'publish reaches runtime')));
    }, 120_000);

    it('refuses on one runtime a token logged out everywhere through the other', async () => {
      const user = await signup(runtimes[0], 'Leaver');
      expect((await call(runtimes[1], 'GET', '/toDos?limit=1', user.token)).status).toBe(200);
      expect((await call(runtimes[0], 'POST', '/auth/logout', user.token, { all: true })).status).toBe(204);
      expect((await call(runtimes[1], 'GET', '/toDos?limit=1', user.token)).status).toBe(401);
    });

    it('bounds a request held past the statement timeout (503), and the next one answers', async () => {
      const user = await signup(runtimes[0], 'Waiter');
      const holder = new pg.Client({ connectionString: database.url! });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query(`lock table "${schemaNameForApp(app.id)}"."${tableNameForModel('urn:svc:model:todo')}" in access exclusive mode`);
        const started = performance.now();
        const held = await call(runtimes[0], 'GET', '/toDos?limit=1', user.token);
        const waited = performance.now() - started;
        expect(held.status).toBe(503);
        expect(String(held.body?.detail)).toMatch(/statement timeout/);
        console.log(`[pooler] a request held on a lock answered 503 after ${waited.toFixed(0)} ms (bound 1000 ms)`);
      } finally {
        await holder.query('rollback').catch(() => undefined);
        await holder.end();
      }
      expect((await call(runtimes[0], 'GET', '/toDos?limit=1', user.token)).status).toBe(200);
    });
  });
});
