// The to-do example end to end (PGlite, and PostgreSQL when it answers): published, end users
// sign up, the `complete` trigger answers 200/404/401; the runs API lists those runs with their
// steps and filters, tenant-scoped; per-action metrics; the test endpoint always rolls back;
// retention deletes old runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { startRunRetention } from '../../src/runtime/runs/retention.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { todoScode } from '../support/examples.ts';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { publishApp, rowCount, signup, TODO, type Published } from './support.ts';

const COMPLETE_TRIGGER = 'urn:svc:trigger:complete-todo';
const COMPLETE_ACTION = 'urn:svc:action:complete-todo';

interface RunReply {
  id: string;
  triggerId: string | null;
  actionId: string;
  status: string;
  input: { initialState: Record<string, unknown>; request?: { headers: Record<string, unknown>; params: Record<string, string> }; authId: string | null };
  steps: Array<{ actionEffectId: string; effect: string; durationMs: number; output?: unknown; error?: { status: number; code: string } }>;
  result: unknown;
  error?: { status: number; code: string };
  durationMs: number;
}

describe.each(await availableDrivers())('to-do example runs on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: Published;
  let alice: Awaited<ReturnType<typeof signup>>;
  let bob: Awaited<ReturnType<typeof signup>>;
  let todoId: string;

  const appCall = async (method: string, path: string, token?: string, body?: unknown) => {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${t.baseUrl}${app.path}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, runId: response.headers.get('x-run-id') };
  };
  const runsOf = (query = '') => tenant.api.get<{ items: RunReply[]; metadata: { total: number } }>(`/v1/applications/${app.id}/runs${query}`);

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Runs');
    app = await publishApp(t, tenant, todoScode() as unknown as AppDefinition);
    alice = await signup(t, app.path, 'Alice');
    bob = await signup(t, app.path, 'Bob');
    const created = await appCall('POST', '/toDos', alice.token, { title: 'ship runs', user: alice.user.id });
    expect(created.status).toBe(201);
    todoId = created.body.id;
  }, 120_000);
  afterAll(() => t?.close());

  it('lets the owner complete the to-do (200, done), refuses another user (404) and anonymous callers (401)', async () => {
    const anonymous = await appCall('POST', `/toDos/${todoId}/complete`);
    expect(anonymous.status).toBe(401);
    const other = await appCall('POST', `/toDos/${todoId}/complete`, bob.token);
    expect(other.status).toBe(404);
    const owner = await appCall('POST', `/toDos/${todoId}/complete`, alice.token);
    expect(owner.status).toBe(200);
    expect(owner.body).toMatchObject({ id: todoId, status: 'done' });
  });

  it('lists those runs with their steps, filtered by trigger, action and status; one run by id', async () => {
    const all = await runsOf(`?triggerId=${encodeURIComponent(COMPLETE_TRIGGER)}`);
    expect(all.status).toBe(200);
    // The anonymous call never ran (401 before the action); Bob's failed, Alice's succeeded. Newest first.
    expect(all.body.metadata.total).toBe(2);
    expect(all.body.items.map((r) => [r.status, r.input.authId])).toEqual([
      ['succeeded', alice.user.id],
      ['failed', bob.user.id],
    ]);
    const [succeeded, failed] = all.body.items;
    expect(succeeded.steps.map((s) => s.actionEffectId)).toEqual(['load', 'check', 'save']);
    expect(succeeded.result).toMatchObject({ id: todoId, status: 'done' });
    expect(succeeded.input.initialState).toEqual({ todoId });
    expect(succeeded.input.request!.params).toEqual({ id: todoId });
    // The bearer token is not kept with the run.
    expect(succeeded.input.request!.headers.authorization).toBeUndefined();
    expect(failed.steps).toEqual([expect.objectContaining({ actionEffectId: 'load', effect: 'data.get', error: expect.objectContaining({ status: 404, code: 'not_found' }) })]);
    expect(failed.error).toMatchObject({ status: 404, code: 'not_found' });

    const onlyFailed = await runsOf(`?triggerId=${encodeURIComponent(COMPLETE_TRIGGER)}&status=failed`);
    expect(onlyFailed.body.items.map((r) => r.id)).toEqual([failed.id]);
    expect(onlyFailed.body.metadata.total).toBe(1);
    const byAction = await runsOf(`?actionId=${encodeURIComponent(COMPLETE_ACTION)}&limit=1`);
    expect(byAction.body.items.map((r) => r.id)).toEqual([succeeded.id]);
    expect(byAction.body.metadata.total).toBe(2);
    const paged = await runsOf(`?actionId=${encodeURIComponent(COMPLETE_ACTION)}&limit=1&offset=1`);
    expect(paged.body.items.map((r) => r.id)).toEqual([failed.id]);

    const one = await tenant.api.get<RunReply>(`/v1/applications/${app.id}/runs/${failed.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: failed.id, triggerId: COMPLETE_TRIGGER, actionId: COMPLETE_ACTION, status: 'failed' });
    expect((await runsOf('?status=nope')).status).toBe(400);
  });

  it('keeps runs to their customer: another tenant gets 404, an unknown run 404', async () => {
    const other = await createTenant(t, 'Other');
    const [run] = (await runsOf()).body.items;
    expect((await other.api.get(`/v1/applications/${app.id}/runs`)).status).toBe(404);
    expect((await other.api.get(`/v1/applications/${app.id}/runs/${run.id}`)).status).toBe(404);
    expect((await other.api.post(`/v1/applications/${app.id}/actions/${COMPLETE_ACTION}/test`, { initialState: { todoId } })).status).toBe(404);
    const missing = await tenant.api.get(`/v1/applications/${app.id}/runs/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
  });

  it('counts runs per action and status in /metrics', async () => {
    const metrics = await (await fetch(`${t.baseUrl}/metrics`)).text();
    const count = (status: string) =>
      Number(new RegExp(`appbuilder_action_runs_total\\{action="${COMPLETE_ACTION}",status="${status}"\\} (\\d+)`).exec(metrics)?.[1] ?? 0);
    expect(count('succeeded')).toBeGreaterThanOrEqual(1);
    expect(count('failed')).toBeGreaterThanOrEqual(1);
  });

  it('tests an action against the app’s data and always rolls back; the run is returned, not stored', async () => {
    const fresh = await appCall('POST', '/toDos', alice.token, { title: 'only a test', user: alice.user.id });
    const before = await rowCount(t, app.served, TODO);
    const url = `/v1/applications/${app.id}/actions/${COMPLETE_ACTION}/test`;
    const asAlice = await tenant.api.post<RunReply>(url, { initialState: { todoId: fresh.body.id }, auth: alice.user.id });
    expect(asAlice.status).toBe(200);
    expect(asAlice.body).toMatchObject({ status: 'succeeded', triggerId: null, result: { id: fresh.body.id, status: 'done' } });
    expect(asAlice.body.steps.map((s) => s.actionEffectId)).toEqual(['load', 'check', 'save']);
    // Rolled back: the to-do is still open.
    expect((await appCall('GET', `/toDos/${fresh.body.id}`, alice.token)).body.status).toBe('open');
    expect((await tenant.api.get(`/v1/applications/${app.id}/runs/${asAlice.body.id}`)).status).toBe(404);
    // As Bob the rule hides it; as a user record given inline, the same.
    const asBob = await tenant.api.post<RunReply>(url, { initialState: { todoId: fresh.body.id }, auth: bob.user.id });
    expect(asBob.body).toMatchObject({ status: 'failed', error: { status: 404 } });
    const inline = await tenant.api.post<RunReply>(url, { initialState: { todoId: fresh.body.id }, auth: { id: bob.user.id, name: 'Bob' } });
    expect(inline.body).toMatchObject({ status: 'failed', error: { status: 404 } });
    // An event-trigger action, with its event, as the administrator: creates, then rolls back.
    const welcome = await tenant.api.post<RunReply>(`/v1/applications/${app.id}/actions/urn:svc:action:welcome/test`, {
      event: { name: 'User.created', payload: { id: bob.user.id, name: 'Bob' } },
    });
    expect(welcome.body).toMatchObject({ status: 'succeeded' });
    expect(welcome.body.steps[0].output).toMatchObject({ title: 'Welcome, Bob! Add your first to-do.', user: bob.user.id });
    expect(await rowCount(t, app.served, TODO)).toBe(before);
  });

  it('refuses a test of an app never published (409), an unknown action (404) or end user (422)', async () => {
    const draft = await createTodoApp(tenant);
    const never = await tenant.api.post<{ detail: string }>(`/v1/applications/${draft.id}/actions/${COMPLETE_ACTION}/test`, { initialState: {} });
    expect(never.status).toBe(409);
    expect(never.body.detail).toMatch(/never been published/);
    const unknown = await tenant.api.post(`/v1/applications/${app.id}/actions/urn:svc:action:nope/test`, {});
    expect(unknown.status).toBe(404);
    const nobody = await tenant.api.post(`/v1/applications/${app.id}/actions/${COMPLETE_ACTION}/test`, { auth: crypto.randomUUID() });
    expect(nobody.status).toBe(422);
  });

  it('deletes runs older than the retention time', async () => {
    const [newest, oldest] = (await runsOf(`?triggerId=${encodeURIComponent(COMPLETE_TRIGGER)}`)).body.items;
    await sql`update appbuilder.runs set started_at = now() - interval '8 days' where id = ${oldest.id}`.execute(t.platform.db.kysely);
    const retention = startRunRetention(t.platform.db, loadConfig({}).runRetentionSeconds);
    try {
      expect(await retention.sweep()).toBe(1);
    } finally {
      retention.stop();
    }
    expect((await tenant.api.get(`/v1/applications/${app.id}/runs/${oldest.id}`)).status).toBe(404);
    expect((await tenant.api.get(`/v1/applications/${app.id}/runs/${newest.id}`)).status).toBe(200);
  });
});

describe('APPBUILDER_RUN_RETENTION', () => {
  it('defaults to 7 days and reads seconds or a unit', () => {
    expect(loadConfig({}).runRetentionSeconds).toBe(7 * 86400);
    expect(loadConfig({ APPBUILDER_RUN_RETENTION: '7d' }).runRetentionSeconds).toBe(604800);
    expect(loadConfig({ APPBUILDER_RUN_RETENTION: '12h' }).runRetentionSeconds).toBe(43200);
    expect(loadConfig({ APPBUILDER_RUN_RETENTION: '90' }).runRetentionSeconds).toBe(90);
    expect(loadConfig({ APPBUILDER_RUN_RETENTION: 'soon' }).runRetentionSeconds).toBe(7 * 86400);
  });
});
