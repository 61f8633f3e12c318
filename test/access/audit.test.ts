/**
 * The audit trail and `createdBy` (DESIGN §10): a builder's changes and publish appear in
 * GET /v1/audit-events (owner only, filters, list envelope, newest first) with the route
 * template as path, and as `createdBy` on the versions and the deployment job; refused
 * writes are recorded with their status, reads and unauthenticated calls are not, and a
 * customer sees only its own events.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { todoScode } from '../support/examples.ts';
import { addBuilder, type TestBuilder } from './builders-support.ts';
import { runInContext, type PendingAudit } from '../../src/access/actor-context.ts';
import { recordAuditIn } from '../../src/access/audit.ts';
import { uuidv7 } from '../../src/tools/ids.ts';

const drivers = await availableDrivers();

interface AuditEvent {
  id: string;
  at: string;
  actor: { type: string; id: string };
  operationId: string | null;
  method: string;
  path: string;
  status: number;
  requestId: string;
}
type Events = { items: AuditEvent[]; metadata: { total: number } };
interface Version {
  serverVersion: string;
  createdBy: { type: string; id: string } | null;
}
type Job = { id: string; jobType: string; status: string; createdBy?: { type: string; id: string } | null };

describe.each(drivers)('audit trail (%s)', (driver) => {
  let t: TestPlatform;
  let a: Tenant;
  let b: Tenant;
  let editor: TestBuilder;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    a = await createTenant(t, 'Audit A');
    b = await createTenant(t, 'Audit B');
    editor = await addBuilder(a.api, 'editor');
  });
  afterAll(async () => {
    await t?.close();
  });

  it("records a builder's changes and publish, and marks the versions and the job as the builder's", async () => {
    const me = { type: 'builder', id: editor.id };
    const created = await editor.api.post<AppReply>('/v1/applications', { projectId: a.projectId, name: 'Audited', scode: todoScode() });
    expect(created.status, created.text).toBe(201);
    const appId = created.body.id;
    const renamed = await editor.api.patch<AppReply>(`/v1/applications/${appId}/models/${encodeURIComponent('urn:svc:model:todo')}`, { name: 'Task' });
    expect(renamed.status, renamed.text).toBe(200);
    const published = await editor.api.post<Omit<AppReply, 'status'> & { status: { jobs: Job[] } }>(`/v1/applications/${appId}/publish`, {});
    expect(published.status, published.text).toBe(202);
    // Reads are not recorded.
    expect((await editor.api.get(`/v1/applications/${appId}`)).status).toBe(200);

    const versions = await a.api.get<{ items: Version[] }>(`/v1/applications/${appId}/versions`);
    expect(versions.body.items).toHaveLength(2);
    for (const version of versions.body.items) expect(version.createdBy).toEqual(me);
    const job = published.body.status.jobs.find((j) => j.jobType === 'deployment');
    expect(job?.createdBy).toEqual(me);
    const status = await a.api.get<Omit<AppReply, 'status'> & { status: { jobs: Job[] } }>(`/v1/applications/${appId}`);
    expect(status.body.status.jobs.find((j) => j.id === job!.id)?.createdBy).toEqual(me);

    const events = await a.api.get<Events>(`/v1/audit-events?actorId=${editor.id}`);
    expect(events.status, events.text).toBe(200);
    expect(events.body.metadata.total).toBe(3);
    expect(events.body.items.map((e) => e.operationId)).toEqual(['publishApplication', 'updateModel', 'createApplication']);
    const [publish, update, create] = events.body.items;
    expect(publish).toMatchObject({ actor: me, method: 'POST', path: '/v1/applications/:applicationId/publish', status: 202 });
    expect(update).toMatchObject({ actor: me, method: 'PATCH', path: '/v1/applications/:applicationId/models/:modelId', status: 200 });
    expect(create).toMatchObject({ actor: me, method: 'POST', path: '/v1/applications', status: 201 });
    for (const event of events.body.items) {
      expect(event.requestId).toMatch(/\S/);
      expect(Date.parse(event.at)).toBeGreaterThan(Date.now() - 120_000);
    }
    expect(new Set(events.body.items.map((e) => e.requestId)).size).toBe(3);

    // A test run started by the builder names it too (once the publish has served the version).
    for (let i = 0; i < 300; i++) {
      const now = await a.api.get<Omit<AppReply, 'status'> & { status: { jobs: Job[] } }>(`/v1/applications/${appId}`);
      const state = now.body.status.jobs.find((j) => j.id === job!.id)?.status;
      if (state === 'succeeded') break;
      expect(['queued', 'running']).toContain(state);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const run = await editor.api.post<{ createdBy: unknown; actionId: string }>(
      `/v1/applications/${appId}/actions/${encodeURIComponent('urn:svc:action:complete-todo')}/test`,
      {},
    );
    expect(run.status, run.text).toBe(200);
    expect(run.body.createdBy).toEqual(me);

    // The API client's own changes carry the client as their actor.
    const own = await createTodoApp(a);
    const clients = await a.api.get<{ items: Array<{ id: string; apiKey: string }> }>('/v1/api-clients');
    const clientId = clients.body.items.find((c) => c.apiKey === a.api.apiKey)!.id;
    const ownVersions = await a.api.get<{ items: Version[] }>(`/v1/applications/${own.id}/versions`);
    expect(ownVersions.body.items[0].createdBy).toEqual({ type: 'apiClient', id: clientId });
  });

  it('records refused writes with their status, never unauthenticated ones or query strings', async () => {
    const viewer = await addBuilder(a.api, 'viewer');
    const refused = await viewer.api.post('/v1/projects?note=secret-query-value', { name: 'Not allowed' });
    expect(refused.status).toBe(403);
    const before = await a.api.get<Events>('/v1/audit-events?limit=1000');
    const anonymous = await fetch(`${t.baseUrl}/v1/projects`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' });
    expect(anonymous.status).toBe(401);
    const after = await a.api.get<Events>('/v1/audit-events?limit=1000');
    expect(after.body.metadata.total).toBe(before.body.metadata.total);

    // A change refused inside its transaction (409) leaves one row with that status and no version.
    const app = await createTodoApp(a);
    const clash = await editor.api.patch(`/v1/applications/${app.id}/models/${encodeURIComponent('urn:svc:model:todo')}`, { name: 'User' });
    expect(clash.status).toBe(409);
    const clashes = await a.api.get<Events>(`/v1/audit-events?actorId=${editor.id}&operationId=updateModel`);
    expect(clashes.body.items.filter((e) => e.status === 409)).toHaveLength(1);
    expect((await a.api.get<{ metadata: { total: number } }>(`/v1/applications/${app.id}/versions`)).body.metadata.total).toBe(1);

    const mine = await a.api.get<Events>(`/v1/audit-events?actorId=${viewer.id}`);
    expect(mine.body.items).toHaveLength(1);
    expect(mine.body.items[0]).toMatchObject({ operationId: 'createProject', method: 'POST', path: '/v1/projects', status: 403 });
    expect(after.text).not.toContain('secret-query-value');
  });

  it('filters by operation and time, pages with exact totals, is for owners only and per customer', async () => {
    const byOperation = await a.api.get<Events>('/v1/audit-events?operationId=publishApplication');
    expect(byOperation.body.items.length).toBeGreaterThan(0);
    for (const event of byOperation.body.items) expect(event.operationId).toBe('publishApplication');
    expect(byOperation.body.metadata.total).toBe(byOperation.body.items.length);

    const all = await a.api.get<Events>('/v1/audit-events?limit=1000');
    const page = await a.api.get<Events>('/v1/audit-events?limit=2&offset=1');
    expect(page.body.metadata.total).toBe(all.body.metadata.total);
    expect(page.body.items.map((e) => e.id)).toEqual(all.body.items.slice(1, 3).map((e) => e.id));
    const future = await a.api.get<Events>(`/v1/audit-events?since=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`);
    expect(future.body).toEqual({ items: [], metadata: { total: 0 } });
    const past = await a.api.get<Events>(`/v1/audit-events?since=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}&limit=1000`);
    expect(past.body.metadata.total).toBe(all.body.metadata.total);
    expect((await a.api.get('/v1/audit-events?since=yesterday')).status).toBe(400);

    const admin = await addBuilder(a.api, 'admin');
    const refused = await admin.api.get('/v1/audit-events');
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('owner');
    const owner = await addBuilder(a.api, 'owner');
    expect((await owner.api.get('/v1/audit-events')).status).toBe(200);

    const other = await b.api.get<Events>('/v1/audit-events?limit=1000');
    expect(other.status).toBe(200);
    for (const event of all.body.items) expect(other.text).not.toContain(event.id);
  });

  it("writes a change's audit row in the change's transaction: rolled back with it, committed with it", async () => {
    const { db } = t.database;
    const client = await db.kysely.selectFrom('appbuilder.api_clients').select(['id', 'customer_id']).where('api_key', '=', a.api.apiKey!).executeTakeFirstOrThrow();
    const pending = (): PendingAudit => ({
      id: uuidv7(),
      customerId: client.customer_id,
      actor: { type: 'apiClient', id: client.id },
      operationId: 'updateProject',
      method: 'PATCH',
      path: '/v1/projects/:projectId',
      requestId: 'req-test',
      successStatus: 200,
      written: false,
    });
    const rolledBack = pending();
    await expect(
      runInContext({ actor: rolledBack.actor, audit: rolledBack }, () =>
        db.kysely.transaction().execute(async (trx) => {
          await recordAuditIn(trx);
          throw new Error('the change failed');
        }),
      ),
    ).rejects.toThrow('the change failed');
    const committed = pending();
    await runInContext({ actor: committed.actor, audit: committed }, () => db.kysely.transaction().execute((trx) => recordAuditIn(trx)));
    const rows = await db.kysely.selectFrom('appbuilder.audit_events').select(['id', 'status']).where('id', 'in', [rolledBack.id, committed.id]).execute();
    expect(rows).toEqual([{ id: committed.id, status: 200 }]);
    // Outside a management write nothing is written.
    await db.kysely.transaction().execute((trx) => recordAuditIn(trx));
  });
});
