import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { publishAndWait, startOn, versionPath } from './support.ts';

const hasPostgres = await postgresAvailable();

/** Polls `url` until it answers `status`; returns how long that took (ms). */
async function msUntil(url: string, status: number, timeoutMs = 5_000): Promise<number> {
  const start = performance.now();
  for (;;) {
    const reply = await fetch(url);
    await reply.arrayBuffer();
    if (reply.status === status) return performance.now() - start;
    if (performance.now() - start > timeoutMs) throw new Error(`${url} still answers ${reply.status}, not ${status}, after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe.skipIf(!hasPostgres)('two platforms on one PostgreSQL database', () => {
  let database: TestDatabase;
  let a: TestPlatform;
  let b: TestPlatform;
  let tenant: Tenant;
  let app: AppReply;
  const onB = (version = app.serverVersion) => `${b.baseUrl}${versionPath(b, app.id, version)}/openapi.json`;

  const waitForListeners = async (count: number) => {
    for (let i = 0; i < 100; i++) {
      const result = await sql<{ n: number }>`
        select count(*)::int as n from pg_stat_activity where application_name = 'appbuilder-notices' and datname = current_database()`.execute(database.db.kysely);
      if (result.rows[0].n === count) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`not ${count} LISTEN connections`);
  };

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    a = await startOn(database, 'all');
    // B serves the generated apps only (management goes through A).
    b = await startOn(database, 'runtime');
    tenant = await createTenant(a, 'Two processes');
    app = await createTodoApp(tenant);
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await a?.close();
    await database?.drop();
  }, 60_000);

  it('an unpublish made through one is seen by the other at once, and so is the next publish', async () => {
    await publishAndWait(tenant, app.id);
    // B compiles and caches the version on its first request.
    expect((await fetch(onB())).status).toBe(200);
    expect((await fetch(onB())).status).toBe(200);

    const unpublished = await tenant.api.post(`/v1/applications/${app.id}/unpublish`, {});
    expect(unpublished.status).toBe(200);
    const seen = await msUntil(onB(), 404, 1_000);
    console.log(`[cross-process] B stopped serving ${seen.toFixed(1)} ms after A's unpublish answered`);
    expect(seen).toBeLessThan(1_000);

    await publishAndWait(tenant, app.id);
    expect((await fetch(onB())).status).toBe(200);
  });

  it('a listener that lost its connection reconnects and forgets what it had (notices may have been missed)', async () => {
    expect((await fetch(onB())).status).toBe(200);
    // Cut every LISTEN connection, then unpublish while they are down.
    const cut = await sql<{ n: number }>`
      select count(*)::int as n from (select pg_terminate_backend(pid) from pg_stat_activity
        where application_name = 'appbuilder-notices' and datname = current_database()) x`.execute(database.db.kysely);
    expect(cut.rows[0].n).toBe(2);
    expect((await tenant.api.post(`/v1/applications/${app.id}/unpublish`, {})).status).toBe(200);
    expect(await msUntil(onB(), 404, 5_000)).toBeLessThan(5_000);
    await waitForListeners(2);
    await publishAndWait(tenant, app.id);
    expect((await fetch(onB())).status).toBe(200);
  });

  it('deleting the application through one stops it on the other at once', async () => {
    expect((await fetch(onB())).status).toBe(200);
    expect((await tenant.api.delete(`/v1/applications/${app.id}`)).status).toBe(204);
    expect(await msUntil(onB(), 404, 1_000)).toBeLessThan(1_000);
  });
});

describe('one platform on the embedded store', () => {
  let t: TestPlatform;

  beforeAll(async () => {
    t = await startTestPlatform('pglite');
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  it('stops serving a deleted application at once (its compiled versions are forgotten)', async () => {
    const tenant = await createTenant(t, 'Embedded');
    const app = await createTodoApp(tenant);
    await publishAndWait(tenant, app.id);
    const url = `${t.baseUrl}${versionPath(t, app.id, app.serverVersion)}/openapi.json`;
    expect((await fetch(url)).status).toBe(200);
    expect((await tenant.api.delete(`/v1/applications/${app.id}`)).status).toBe(204);
    expect(await msUntil(url, 404, 1_000)).toBeLessThan(1_000);
  });
});
