// Explain over HTTP on the to-do example: each rule check with the values it used, rows seen and
// hidden, for the owner, another user and nobody; reads, lists with filters, writes, sign-up,
// and an HTTP trigger's validation. An explained write never changes the data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type Page, type Rec } from '../runtime/served-app.ts';

interface Explanation {
  status: number;
  decision: string;
  checks: Array<{ model: string; operation: string; ruleIndex: number; expression: string; result: unknown; values: Record<string, unknown> }>;
  rows: { visible: number; hidden: number };
  fieldsHidden: string[];
}

const RULE = 'auth != null && record.user == auth.id';

/** The example with an HTTP trigger whose validation needs a title. */
function definition() {
  const scode = todoScodeWithoutEvents() as ReturnType<typeof todoScodeWithoutEvents> & { triggers: unknown[]; actions: unknown[] };
  scode.actions.push({ id: 'urn:svc:action:echo', startEffectId: 'answer', effects: [{ actionEffectId: 'answer', effect: 'flow.return', params: { status: 200 }, bindParams: { body: 'request.body' } }] });
  scode.triggers.push({
    trigger: { id: 'urn:svc:trigger:echo', type: 'http', method: 'POST', path: '/echo' },
    actionId: 'urn:svc:action:echo',
    initialState: {},
    validation: ["has(request.body.title) && request.body.title != ''"],
    isPublic: true,
  });
  return scode;
}

describe.each(await availableDrivers())('explain on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let appId: string;
  let ann: { token: string; user: Rec };
  let bob: { token: string; user: Rec };
  let annTodo: Rec;

  const explain = async (as: { userId: string } | 'anonymous', method: string, path: string, body?: unknown, query?: Record<string, string>) => {
    const reply = await tenant.api.post<Explanation>(`/v1/applications/${appId}/explain`, { as, request: { method, path, ...(body === undefined ? {} : { body }), ...(query ? { query } : {}) } });
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };
  const snapshot = async () => {
    const todos = (await api.get<Page>('/toDos?limit=1000&sort=id', 'admin')).body;
    const users = (await api.get<Page>('/users?limit=1000&sort=id', 'admin')).body;
    return { todos, users };
  };

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Explain');
    const app = await createTodoApp(tenant, definition());
    appId = app.id;
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    ann = await api.signup('Ann', 'ann@example.test');
    bob = await api.signup('Bob', 'bob@example.test');
    annTodo = (await api.post('/toDos', { title: 'Ann 1', user: ann.user.id }, 'admin')).body;
    await api.post('/toDos', { title: 'Ann 2', user: ann.user.id }, 'admin');
    await api.post('/toDos', { title: 'Bob 1', user: bob.user.id }, 'admin');
  }, 120_000);
  afterAll(() => t?.close());

  it('a read by the owner is allowed by rule 0, with the values it compared', async () => {
    const e = await explain({ userId: ann.user.id }, 'GET', `/toDos/${annTodo.id}`);
    expect(e).toEqual({
      status: 200,
      decision: 'allow',
      checks: [{ model: 'ToDo', operation: 'read', ruleIndex: 0, expression: RULE, result: true, values: { 'auth.id': ann.user.id, 'record.user': ann.user.id } }],
      rows: { visible: 1, hidden: 0 },
      fieldsHidden: [],
    });
  });

  it('another user and nobody are denied, and say why', async () => {
    const other = await explain({ userId: bob.user.id }, 'GET', `/toDos/${annTodo.id}`);
    expect(other).toMatchObject({ status: 404, decision: 'deny', rows: { visible: 0, hidden: 1 } });
    expect(other.checks).toEqual([{ model: 'ToDo', operation: 'read', ruleIndex: 0, expression: RULE, result: false, values: { 'auth.id': bob.user.id, 'record.user': ann.user.id } }]);
    const nobody = await explain('anonymous', 'GET', `/toDos/${annTodo.id}`);
    expect(nobody).toMatchObject({ status: 404, decision: 'deny', rows: { visible: 0, hidden: 1 } });
    expect(nobody.checks).toEqual([{ model: 'ToDo', operation: 'read', ruleIndex: 0, expression: RULE, result: false, values: { auth: null } }]);
  });

  it('a list is filtered: rows visible and hidden, the rule per row; a filter narrows both', async () => {
    const e = await explain({ userId: bob.user.id }, 'GET', '/toDos');
    expect(e).toMatchObject({ status: 200, decision: 'filtered', rows: { visible: 1, hidden: 2 } });
    expect(e.checks).toEqual([{ model: 'ToDo', operation: 'read', ruleIndex: 0, expression: RULE, result: 'per-row', values: { 'auth.id': bob.user.id, residual: `record.user == '${bob.user.id}'` } }]);
    const filtered = await explain({ userId: ann.user.id }, 'GET', '/toDos', undefined, { filter: "record.title.startsWith('Ann')" });
    expect(filtered).toMatchObject({ status: 200, decision: 'allow', rows: { visible: 2, hidden: 0 } });
    const anonymous = await explain('anonymous', 'GET', '/toDos?limit=5');
    expect(anonymous).toMatchObject({ status: 200, decision: 'filtered', rows: { visible: 0, hidden: 3 } });
    expect(anonymous.checks[0].result).toBe(false);
  });

  it('writes are judged for real and change nothing', async () => {
    const before = await snapshot();
    const update = await explain({ userId: ann.user.id }, 'PATCH', `/toDos/${annTodo.id}`, { title: 'changed' });
    expect(update).toMatchObject({ status: 200, decision: 'allow' });
    expect(update.checks.map((c) => [c.operation, c.result])).toEqual([['update', true]]);
    const refused = await explain({ userId: bob.user.id }, 'PATCH', `/toDos/${annTodo.id}`, { title: 'changed' });
    expect(refused).toMatchObject({ status: 404, decision: 'deny' });
    expect(refused.checks.map((c) => [c.operation, c.result])).toEqual([['read', false], ['update', false]]);
    expect(await explain({ userId: ann.user.id }, 'DELETE', `/toDos/${annTodo.id}`)).toMatchObject({ status: 204, decision: 'allow' });
    const create = await explain({ userId: ann.user.id }, 'POST', '/toDos', { title: 'new', user: ann.user.id });
    expect(create).toMatchObject({ status: 201, decision: 'allow', rows: { visible: 1, hidden: 0 } });
    expect(create.checks).toEqual([{ model: 'ToDo', operation: 'create', ruleIndex: 0, expression: RULE, result: true, values: { 'auth.id': ann.user.id, 'record.user': ann.user.id } }]);
    const forOther = await explain({ userId: bob.user.id }, 'POST', '/toDos', { title: 'new', user: ann.user.id });
    expect(forOther).toMatchObject({ status: 403, decision: 'deny' });
    expect(forOther.checks[0]).toMatchObject({ result: false, values: { 'auth.id': bob.user.id, 'record.user': ann.user.id } });
    // Handing one's to-do to someone else would take it out of one's reach: the rule held before, not after.
    const away = await explain({ userId: ann.user.id }, 'PATCH', `/toDos/${annTodo.id}`, { user: bob.user.id });
    expect(away).toMatchObject({ status: 403, decision: 'deny' });
    expect(away.checks.map((c) => [c.operation, c.result, c.values['record.user']])).toEqual([['update', true, ann.user.id], ['update', false, bob.user.id]]);
    const signup = await explain('anonymous', 'POST', '/auth/signup', { name: 'Cy', email: 'cy@example.test', password: 'correct horse' });
    expect(signup).toMatchObject({ status: 201, decision: 'allow' });
    expect((await explain('anonymous', 'POST', '/auth/signup', { name: 'Ann again', email: 'ann@example.test', password: 'correct horse' })).status).toBe(409);
    expect(await snapshot()).toEqual(before);
  });

  it('an HTTP trigger: its validation checked, the action not run', async () => {
    const passing = await explain('anonymous', 'POST', '/echo', { title: 'hi' });
    expect(passing).toMatchObject({ status: 200, decision: 'allow' });
    expect(passing.checks).toEqual([{ model: 'urn:svc:trigger:echo', operation: 'validation', ruleIndex: 0, expression: "has(request.body.title) && request.body.title != ''", result: true, values: { auth: null } }]);
    const failing = await explain('anonymous', 'POST', '/echo', { title: '' });
    expect(failing).toMatchObject({ status: 422, decision: 'deny' });
    expect(failing.checks[0].result).toBe(false);
  });

  it('refuses an unknown user, an unpublished version and a bad body', async () => {
    const unknown = await tenant.api.post(`/v1/applications/${appId}/explain`, { as: { userId: '00000000-0000-4000-8000-000000000000' }, request: { method: 'GET', path: '/toDos' } });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('/as/userId');
    const version = await tenant.api.post(`/v1/applications/${appId}/explain`, { version: '9.9.9', as: 'anonymous', request: { method: 'GET', path: '/toDos' } });
    expect(version.status).toBe(404);
    const bad = await tenant.api.post(`/v1/applications/${appId}/explain`, { as: 'someone', request: { method: 'GET', path: '/toDos' } });
    expect(bad.status).toBe(400);
  });
});
