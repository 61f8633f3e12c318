// Must show (issue 22): a request never runs longer than APPBUILDER_STATEMENT_TIMEOUT. On
// PostgreSQL with a 500 ms bound, an end user owning 200,000 to-dos asks for a page that needs a
// sort of all of them: 503 with a problem body naming the timeout, within 1 s; the pool's
// connections are clean afterwards (nothing active, nothing left in a transaction) and the next
// requests answer 200. PGlite has no statement timeout (README): not run there.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import type { Page, ProblemBody } from './served-app.ts';
import { seedSlowApp, SEEDED_TODOS, SLOW_LIST, type SlowApp } from './slow-requests.ts';

const hasPostgres = await postgresAvailable();
if (!hasPostgres) console.warn('[tests] statement-timeout: PostgreSQL does not answer; skipped.');

describe.skipIf(!hasPostgres)('the statement timeout (PostgreSQL, 500 ms)', () => {
  let t: TestPlatform;
  let slow: SlowApp;

  beforeAll(async () => {
    t = await startTestPlatform('postgres', { statementTimeoutMs: 500 });
    slow = await seedSlowApp(t);
  }, 120_000);
  afterAll(() => t?.close(), 60_000);

  it('answers 503 naming the timeout within 1 s, and the next request on the same pool 200', async () => {
    expect(t.platform.db.statementTimeoutMs).toBe(500);
    const started = Date.now();
    const reply = await slow.api.get<ProblemBody & { title: string; type: string }>(SLOW_LIST, slow.owner.token);
    const elapsed = Date.now() - started;
    console.log(`[statement-timeout] ${SEEDED_TODOS} to-dos: ${reply.status} after ${elapsed} ms`);
    expect(reply.status).toBe(503);
    expect(reply.contentType).toContain('application/problem+json');
    expect(reply.body.title).toBe('Service Unavailable');
    expect(reply.body.detail).toContain('statement timeout of 500 ms');
    expect(reply.body.detail).toContain('APPBUILDER_STATEMENT_TIMEOUT');
    expect(elapsed).toBeLessThan(1000);

    // Nothing of the service's is still running or left inside a transaction.
    const busy = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid()
        and (state in ('active', 'idle in transaction', 'idle in transaction (aborted)')) and query not like 'LISTEN%'
        and application_name not like 'appbuilder-%'`.execute(t.platform.db.kysely);
    expect(busy.rows[0].n).toBe(0);

    // The pool serves the next requests: more of them than it has connections.
    for (let i = 0; i < 12; i++) {
      const next = await slow.api.get<Page>('/toDos?limit=5', slow.other.token);
      expect(next.status).toBe(200);
      expect(next.body.total).toBe(0);
    }
    const created = await slow.api.post('/toDos', { title: 'After the timeout', status: 'open', user: slow.other.id }, slow.other.token);
    expect(created.status).toBe(201);
  }, 60_000);
});
