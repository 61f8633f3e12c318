// Known traffic against a published app (PGlite, and PostgreSQL when it answers): n × 200, m × 404
// and k × 500 from an action that fails on version 1, j × 200 on version 2; the request log and
// the metrics find exactly those counts per version and route template, the Application's status
// carries each version's health, Prometheus counts them by application and version, and another
// customer gets 404 on all of it. A secret sent in a query string, a body or a header leaves no
// trace in the log.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { listOperations } from '../support/openapi.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { publish } from '../support/publish.ts';
import { createTenant, type AppReply, type Tenant } from '../support/tenant.ts';
import type { LogRow } from '../../src/monitoring/queries.ts';
import { EXPLODE_ACTION, publishMonitored, servedVersion, signup, type ServedVersion } from './support.ts';

const N = 5;
const M = 3;
const K = 4;
const J = 2;
const TODO_MODEL = 'urn:svc:model:todo';
const TITLE = 'urn:svc:edge:todo-title';

type LogPage = { items: LogRow[]; metadata: { nextCursor: string | null } };

interface Point {
  requests: number;
  errors4xx: number;
  errors5xx: number;
  p50Ms: number | null;
  p99Ms: number | null;
}
interface Metrics {
  requests: Array<{ serverVersion: string; method: string; route: string; total: Point; points: Array<Point & { at: string }> }>;
  runs: Array<{ serverVersion: string; actionId: string; total: { runs: number; failures: number } }>;
  jobs: Array<{ jobType: string; jobs: number; failed: number; p50DurationMs: number | null }>;
}

describe.each(await availableDrivers())('monitoring a running app on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let other: Tenant;
  let v1: ServedVersion;
  let v2: ServedVersion;
  let alice: { token: string; userId: string };

  /** Every row of the log, following the cursor `limit` rows at a time. */
  const allLogs = async (query = '', limit = 4): Promise<LogRow[]> => {
    const rows: LogRow[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      const reply: { status: number; body: LogPage } = await tenant.api.get<LogPage>(`/v1/applications/${v1.id}/logs?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(reply.status).toBe(200);
      expect(reply.body.items.length).toBeLessThanOrEqual(limit);
      rows.push(...reply.body.items);
      cursor = reply.body.metadata.nextCursor;
      if (!cursor) return rows;
    }
    throw new Error('the cursor never ended');
  };

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Monitored');
    other = await createTenant(t, 'Other');
    v1 = await publishMonitored(t, tenant);
    alice = await signup(v1, 'Alice');
    for (let i = 0; i < N; i++) expect((await v1.call('GET', '/toDos', { token: alice.token })).status).toBe(200);
    for (let i = 0; i < M; i++) expect((await v1.call('GET', `/toDos/0190a1b2-c3d4-7e5f-8a6b-${String(i).padStart(12, '0')}`, { token: alice.token })).status).toBe(404);
    for (let i = 0; i < K; i++) expect((await v1.call('POST', '/explode', { token: alice.token })).status).toBe(500);
    // Version 2 (a renamed field), published beside version 1.
    const renamed = await tenant.api.patch<AppReply>(`/v1/applications/${v1.id}/models/${TODO_MODEL}/fields/${TITLE}`, { name: 'heading' });
    expect(renamed.status).toBe(200);
    await publish(tenant, v1.id, renamed.body.serverVersion);
    v2 = servedVersion(t, tenant, renamed.body, renamed.body.serverVersion);
    for (let i = 0; i < J; i++) expect((await v2.call('GET', '/toDos', { admin: true })).status).toBe(200);
  }, 120_000);
  afterAll(() => t?.close());

  it('lists exactly the requests sent, by version, method, route template and status, newest first over cursor pages', async () => {
    const rows = await allLogs();
    const counts: Record<string, number> = {};
    for (const row of rows) counts[`${row.serverVersion} ${row.method} ${row.route} ${row.status}`] = (counts[`${row.serverVersion} ${row.method} ${row.route} ${row.status}`] ?? 0) + 1;
    expect(counts).toEqual({
      [`${v1.serverVersion} POST /auth/signup 201`]: 1,
      [`${v1.serverVersion} GET /toDos 200`]: N,
      [`${v1.serverVersion} GET /toDos/:id 404`]: M,
      [`${v1.serverVersion} POST /explode 500`]: K,
      [`${v2.serverVersion} GET /toDos 200`]: J,
    });
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    const times = rows.map((r) => Date.parse(r.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    for (const row of rows.filter((r) => r.route === '/explode')) {
      expect(row.userId).toBe(alice.userId);
      expect(row.errorType).toBeTruthy();
      expect(row.durationMs).toBeGreaterThan(0);
    }
    expect(rows.filter((r) => r.route === '/auth/signup')[0].userId).toBeNull();
  });

  it('filters by status class, exact status, route, user and version', async () => {
    expect((await allLogs('&status=5xx')).length).toBe(K);
    expect((await allLogs('&status=404')).length).toBe(M);
    expect((await allLogs(`&route=${encodeURIComponent('/toDos/:id')}`)).length).toBe(M);
    expect((await allLogs(`&userId=${alice.userId}`)).length).toBe(N + M + K);
    expect((await allLogs(`&serverVersion=${v2.serverVersion}`)).length).toBe(J);
    expect((await allLogs(`&from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).length).toBe(0);
    const bad = await tenant.api.get<{ errors: Array<{ path: string }> }>(`/v1/applications/${v1.id}/logs?cursor=not-a-cursor`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect(bad.body.errors[0].path).toBe('/cursor');
    const badStatus = await tenant.api.get(`/v1/applications/${v1.id}/logs?status=abc`);
    expect(badStatus.status).toBe(400);
  });

  it('gives the same counts as metrics series per version and route, with latency percentiles, action failures and jobs', async () => {
    const from = encodeURIComponent(new Date(Date.now() - 30 * 60_000).toISOString());
    const reply = await tenant.api.get<Metrics>(`/v1/applications/${v1.id}/metrics?from=${from}&step=60`);
    expect(reply.status).toBe(200);
    const series = (version: string, method: string, route: string) => reply.body.requests.find((s) => s.serverVersion === version && s.method === method && s.route === route)!;
    const list = series(v1.serverVersion, 'GET', '/toDos');
    expect(list.total).toMatchObject({ requests: N, errors4xx: 0, errors5xx: 0 });
    expect(series(v1.serverVersion, 'GET', '/toDos/:id').total).toMatchObject({ requests: M, errors4xx: M, errors5xx: 0 });
    const explode = series(v1.serverVersion, 'POST', '/explode');
    expect(explode.total).toMatchObject({ requests: K, errors4xx: 0, errors5xx: K });
    expect(explode.total.p50Ms).toBeGreaterThan(0);
    expect(explode.total.p99Ms).toBeGreaterThanOrEqual(explode.total.p50Ms!);
    expect(series(v2.serverVersion, 'GET', '/toDos').total).toMatchObject({ requests: J, errors5xx: 0 });
    expect(reply.body.requests).toHaveLength(5);
    // The steps add up to the total.
    for (const s of reply.body.requests) expect(s.points.reduce((sum, p) => sum + p.requests, 0)).toBe(s.total.requests);
    const runs = reply.body.runs.find((r) => r.actionId === EXPLODE_ACTION && r.serverVersion === v1.serverVersion)!;
    expect(runs.total).toEqual(expect.objectContaining({ runs: K, failures: K }));
    const deployments = reply.body.jobs.find((j) => j.jobType === 'deployment')!;
    expect(deployments).toMatchObject({ jobs: 2, failed: 0 });
    expect(deployments.p50DurationMs).toBeGreaterThan(0);

    const tooMany = await tenant.api.get<{ errors: Array<{ path: string }> }>(`/v1/applications/${v1.id}/metrics?from=${encodeURIComponent(new Date(Date.now() - 2 * 86_400_000).toISOString())}&step=10`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors[0].path).toBe('/step');
  });

  it("shows each deployment's last request, error rate and health in the Application's status", async () => {
    const reply = await tenant.api.get<{ status: { deployments: Array<{ serverVersion: string; lastRequestAt: string | null; errorRate: number; health: string }> } }>(`/v1/applications/${v1.id}`);
    expect(reply.status).toBe(200);
    const first = reply.body.status.deployments.find((d) => d.serverVersion === v1.serverVersion)!;
    const second = reply.body.status.deployments.find((d) => d.serverVersion === v2.serverVersion)!;
    expect(first.errorRate).toBeCloseTo(K / (1 + N + M + K), 6);
    expect(first.health).toBe('degraded');
    expect(Date.now() - Date.parse(first.lastRequestAt!)).toBeLessThan(120_000);
    expect(second).toMatchObject({ errorRate: 0, health: 'ok' });
  });

  it('counts the requests in Prometheus /metrics by application, version, route template and status class', async () => {
    const text = await (await fetch(`${t.baseUrl}/metrics`)).text();
    const value = (version: string, route: string, statusClass: string): number => {
      const line = text
        .split('\n')
        .find((l) => l.startsWith('appbuilder_app_requests_total{') && l.includes(`application="${v1.id}"`) && l.includes(`version="${version}"`) && l.includes(`route="${route}"`) && l.includes(`status_class="${statusClass}"`));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    expect(value(v1.serverVersion, '/explode', '5xx')).toBe(K);
    expect(value(v1.serverVersion, '/toDos/:id', '4xx')).toBe(M);
    expect(value(v1.serverVersion, '/toDos', '2xx')).toBe(N);
    expect(value(v2.serverVersion, '/toDos', '2xx')).toBe(J);
    // Ids never become labels.
    expect(text).not.toContain('0190a1b2-c3d4-7e5f-8a6b-');
  });

  it('documents the monitoring operations in the management OpenAPI document, each secured', async () => {
    const operations = await listOperations(t.baseUrl);
    const mine = operations.filter((op) => op.path.startsWith('/v1/applications/{applicationId}/') && /logs|metrics|webhook/.test(op.path));
    expect(mine.map((op) => `${op.method} ${op.path} ${op.operationId}`).sort()).toEqual([
      'DELETE /v1/applications/{applicationId}/webhook deleteApplicationWebhook',
      'GET /v1/applications/{applicationId}/logs listRequestLogs',
      'GET /v1/applications/{applicationId}/metrics getApplicationMetrics',
      'GET /v1/applications/{applicationId}/webhook getApplicationWebhook',
      'PUT /v1/applications/{applicationId}/webhook putApplicationWebhook',
    ]);
    for (const op of mine) expect(op.secured, op.operationId).toBe(true);
  });

  it('answers 404 to another customer for the logs, the metrics and the webhook', async () => {
    for (const path of ['logs', 'metrics', 'webhook']) {
      const reply = await other.api.get(`/v1/applications/${v1.id}/${path}`);
      expect(reply.status, path).toBe(404);
      expect(reply.headers.get('content-type')).toContain('application/problem+json');
      expect(reply.text).not.toContain('/explode');
    }
    const put = await other.api.put(`/v1/applications/${v1.id}/webhook`, { url: 'https://example.test/hook' });
    expect(put.status).toBe(404);
    const unauthenticated = await fetch(`${t.baseUrl}/v1/applications/${v1.id}/logs`);
    expect(unauthenticated.status).toBe(401);
  });

  it('keeps no trace of a secret sent in a query string, a body or a header', async () => {
    const canary = `canary-${Math.random().toString(36).slice(2)}-secret`;
    await v1.call('GET', `/toDos?filter=${encodeURIComponent(`title == '${canary}'`)}&token=${canary}`, { token: alice.token });
    await v1.call('POST', `/toDos?apiKey=${canary}`, { token: alice.token, body: { title: canary, user: alice.userId }, headers: { 'x-api-key': canary } });
    await v1.call('GET', `/${canary}`, { headers: { authorization: `Bearer ${canary}` } });
    const logged = await allLogs('', 1000);
    expect(logged.filter((r) => Date.now() - Date.parse(r.at) < 60_000).length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(logged)).not.toContain(canary);
    // And in the table itself, every column of every row.
    const stored = await sql<{ row: string }>`select r::text as row from appbuilder.request_log r where application_id = ${v1.id}`.execute(t.platform.db.kysely);
    expect(stored.rows.length).toBe(logged.length);
    for (const { row } of stored.rows) expect(row).not.toContain(canary);
  });
});
