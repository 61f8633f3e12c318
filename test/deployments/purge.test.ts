import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnNameForField } from '../../src/definition/naming.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { todoScode } from '../support/examples.ts';
import { publishAndWait, tableColumns, versionPath } from './support.ts';

const DESCRIPTION = 'urn:svc:edge:todo-description';
const TITLE = 'urn:svc:edge:todo-title';
const TODO = 'urn:svc:model:todo';

interface Problem {
  status: number;
  detail: string;
  errors: Array<{ path: string; message: string }>;
}

describe.each(await availableDrivers())('purging removed fields (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: AppReply;
  let v1: string;
  let v2: string;
  let todoId: string;

  const columns = async () => [...(await tableColumns(t, app.id, TODO)).keys()];
  const purge = (fieldIds: string[]) => tenant.api.post<Problem & AppReply>(`/v1/applications/${app.id}/purge`, { fieldIds });
  const asAdmin = (path: string, init: { method?: string; body?: unknown } = {}) =>
    tenant.api.request<Record<string, unknown>>(init.method ?? 'GET', path, init.body === undefined ? {} : { body: init.body });

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Purge');
    app = await createTodoApp(tenant);
    v1 = app.serverVersion;
    await publishAndWait(tenant, app.id);
    // Rows, written as the app's administrator (management credentials).
    const user = await asAdmin(`${versionPath(t, app.id, v1)}/users`, { method: 'POST', body: { name: 'Ann', email: 'ann@example.com' } });
    expect(user.status).toBe(201);
    const todo = await asAdmin(`${versionPath(t, app.id, v1)}/toDos`, { method: 'POST', body: { title: 'Keep me', description: 'Drop me', user: user.body.id } });
    expect(todo.status).toBe(201);
    todoId = todo.body.id as string;
    // v2: the to-do's description is removed from the definition.
    const scode = todoScode();
    const model = scode.models.find((m) => m.id === TODO) as { fields: Array<{ id: string }> };
    model.fields = model.fields.filter((f) => f.id !== DESCRIPTION);
    const replaced = await tenant.api.put<AppReply>(`/v1/applications/${app.id}/scode`, scode);
    expect(replaced.status).toBe(200);
    v2 = replaced.body.serverVersion;
    expect(v2).not.toBe(v1);
  }, 180_000);

  afterAll(async () => {
    await t?.close();
  });

  it('refuses while a served version or the deployed schema still has the field (409 naming it), and drops nothing', async () => {
    const reply = await purge([DESCRIPTION]);
    expect(reply.status).toBe(409);
    expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(reply.body.errors).toEqual([{ path: '/fieldIds/0', message: expect.stringContaining(`served version ${v1}`) }]);
    expect(reply.body.errors[0].message).toContain(DESCRIPTION);

    await publishAndWait(tenant, app.id, v2);
    const stillServed = await purge([DESCRIPTION]);
    expect(stillServed.status).toBe(409);
    expect(stillServed.body.errors[0].message).toContain(`served version ${v1}`);
    expect(stillServed.body.errors[0].message).not.toContain('deployed schema');
    expect(await columns()).toContain(columnNameForField(DESCRIPTION));
  });

  it('refuses a field of the current definition and an id nothing ever stored, and then drops nothing at all', async () => {
    expect((await tenant.api.post(`/v1/applications/${app.id}/unpublish`, { serverVersion: v1 })).status).toBe(200);
    const mixed = await purge([DESCRIPTION, TITLE]);
    expect(mixed.status).toBe(409);
    expect(mixed.body.errors).toEqual([{ path: '/fieldIds/1', message: expect.stringContaining('the current definition') }]);
    const unknown = await purge([DESCRIPTION, 'urn:svc:edge:never-was']);
    expect(unknown.status).toBe(409);
    expect(unknown.body.errors).toEqual([{ path: '/fieldIds/1', message: expect.stringContaining('stored by none') }]);
    // One transaction: the purgeable description was not dropped either.
    expect(await columns()).toContain(columnNameForField(DESCRIPTION));
  });

  it('drops the column once nothing uses it; the rows and the served version are intact', async () => {
    const before = await columns();
    // (The example's User.created trigger may add a welcome to-do of its own.)
    const listBefore = await asAdmin(`${versionPath(t, app.id, v2)}/toDos?sort=id`);
    const reply = await purge([DESCRIPTION]);
    expect(reply.status).toBe(200);
    expect(reply.body.id).toBe(app.id);
    const after = await columns();
    expect(after).not.toContain(columnNameForField(DESCRIPTION));
    // The stored search column that read the description goes with it (drop … cascade); the served
    // version's own search column, over its text fields, stays and still finds the record.
    const plain = (cs: string[]) => cs.filter((c) => !c.startsWith('search_')).sort();
    const search = (cs: string[]) => cs.filter((c) => c.startsWith('search_'));
    expect(plain(after)).toEqual(plain(before).filter((c) => c !== columnNameForField(DESCRIPTION)));
    expect(search(after).length).toBe(search(before).length - 1);
    const found = await asAdmin(`${versionPath(t, app.id, v2)}/toDos?search=${encodeURIComponent('Keep me')}`);
    expect(found.status).toBe(200);
    expect((found.body as { items: Array<{ id: string }> }).items.map((r) => r.id)).toContain(todoId);
    expect((reply.body as unknown as { status: { migrations: Array<{ statements: string[] }> } }).status.migrations[0].statements).toEqual([
      'purge: drop column ToDo.description',
    ]);

    const read = await asAdmin(`${versionPath(t, app.id, v2)}/toDos/${todoId}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: todoId, title: 'Keep me', status: 'open' });
    expect(read.body).not.toHaveProperty('description');
    const list = await asAdmin(`${versionPath(t, app.id, v2)}/toDos?sort=id`);
    expect(list.body.total).toBeGreaterThanOrEqual(1);
    expect(list.body).toEqual(listBefore.body);
  });

  it('brings the column back (empty) when the old version is published again', async () => {
    await publishAndWait(tenant, app.id, v1);
    expect(await columns()).toContain(columnNameForField(DESCRIPTION));
    const read = await asAdmin(`${versionPath(t, app.id, v1)}/toDos/${todoId}`);
    expect(read.body).toMatchObject({ id: todoId, title: 'Keep me', description: null });
  });

  it('answers 404 for another customer’s application and 400 for an empty list', async () => {
    const other = await createTenant(t, 'Other');
    expect((await other.api.post(`/v1/applications/${app.id}/purge`, { fieldIds: [DESCRIPTION] })).status).toBe(404);
    expect((await purge([])).status).toBe(400);
  });
});
