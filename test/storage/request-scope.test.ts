// The request scope on PostgreSQL (storage/request-scope.ts): once the client has gone, a statement
// the request starts is refused, one it is running is cancelled (its connection leaves the pool),
// and work started outside requests (background passes) is not touched.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/storage/db.ts';
import { ClientGoneError, outsideRequests, RequestScope, runInScope } from '../../src/storage/request-scope.ts';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../support/databases.ts';

const hasPostgres = await postgresAvailable();
if (!hasPostgres) console.warn('[tests] request-scope: PostgreSQL does not answer; skipped.');

describe.skipIf(!hasPostgres)('request scopes (PostgreSQL)', () => {
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    db = database.db;
  });
  afterAll(() => database?.drop());

  it('cancels a running statement when the scope closes, refuses later ones, and leaves work outside requests alone', async () => {
    const scope = new RequestScope();
    const started = Date.now();
    const running = runInScope(scope, () => sql`select pg_sleep(5)`.execute(db.kysely));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const background = runInScope(scope, () => outsideRequests(() => new Promise((resolve) => setTimeout(resolve, 50)).then(() => sql<{ n: number }>`select 1 as n`.execute(db.kysely))));
    scope.close();
    await expect(running).rejects.toMatchObject({ status: 503 });
    expect(Date.now() - started).toBeLessThan(2000);
    await expect(runInScope(scope, () => sql`select 1`.execute(db.kysely))).rejects.toBeInstanceOf(ClientGoneError);
    expect((await background).rows).toEqual([{ n: 1 }]);
    // The pool serves on; the cancelled connection was closed, not reused.
    const after = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`.execute(db.kysely);
    expect(after.rows[0].n).toBe(0);
  });
});
