// Unique values over real HTTP, on both drivers: a model's unique index refuses a duplicate
// create or update with a 409 naming its fields; a version adding one over rows that already
// collide is refused at publish (409 naming the fields) and nothing changes: the served version,
// its schema and its data stay as they were.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaNameForApp, tableNameForModel } from '../../src/definition/naming.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type Page, type ProblemBody, type Rec } from './served-app.ts';

const UNIQUE_TITLE_PER_USER = [{ fields: ['urn:svc:edge:todo-title', 'urn:svc:edge:todo-user'], unique: true }];

function definition(indexes?: unknown) {
  const scode = todoScodeWithoutEvents() as unknown as { models: Array<{ id: string; indexes?: unknown }> };
  if (indexes) scode.models.find((m) => m.id === 'urn:svc:model:todo')!.indexes = indexes;
  return scode;
}

async function uniqueIndexes(t: TestPlatform, appId: string): Promise<string[]> {
  const rows = await sql<{ indexdef: string }>`select indexdef from pg_indexes where schemaname = ${schemaNameForApp(appId)} and tablename = ${tableNameForModel('urn:svc:model:todo')} and indexdef like 'CREATE UNIQUE INDEX %' and indexname not like '%pkey%'`.execute(t.database.db.kysely);
  return rows.rows.map((r) => r.indexdef);
}

describe.each(await availableDrivers())('unique indexes on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Unique values');
  }, 120_000);
  afterAll(() => t?.close());

  it('refuses a duplicate create and update with a 409 naming the fields, and allows the same values for another user', async () => {
    const app = await createTodoApp(tenant, definition(UNIQUE_TITLE_PER_USER));
    await publish(tenant, app.id);
    const api = new ServedApi(t, tenant, app.id, app.serverVersion);
    const ann = await api.signup('Ann', 'ann@example.test');
    const bob = await api.signup('Bob', 'bob@example.test');
    expect((await api.post('/toDos', { title: 'Buy milk' }, ann.token)).status).toBe(201);
    const duplicate = await api.post<ProblemBody>('/toDos', { title: 'Buy milk' }, ann.token);
    expect(duplicate.status).toBe(409);
    expect(duplicate.contentType).toContain('application/problem+json');
    expect(duplicate.body.errors.map((e) => e.path)).toEqual(['/title', '/user']);
    expect(duplicate.body.detail).toContain('title, user');
    expect((await api.post('/toDos', { title: 'Buy milk' }, bob.token)).status).toBe(201);
    const other = await api.post('/toDos', { title: 'Buy bread' }, ann.token);
    const renamed = await api.patch<ProblemBody>(`/toDos/${other.body.id}`, { title: 'Buy milk' }, ann.token);
    expect(renamed.status).toBe(409);
    expect(renamed.body.errors.map((e) => e.path)).toEqual(['/title', '/user']);
    const list = await api.get<Page>('/toDos?sort=title', ann.token);
    expect(list.body.items.map((r) => r.title)).toEqual(['Buy bread', 'Buy milk']);
  }, 120_000);

  it('refuses to publish a unique index over colliding rows (409 naming the fields), changing nothing', async () => {
    const app = await createTodoApp(tenant, definition());
    await publish(tenant, app.id);
    const api = new ServedApi(t, tenant, app.id, app.serverVersion);
    const ann = await api.signup('Ann', 'ann2@example.test');
    for (const title of ['Same', 'Same', 'Other']) expect((await api.post('/toDos', { title }, ann.token)).status).toBe(201);
    const before = (await api.get<Page>('/toDos?sort=title', 'admin')).body;

    const edited = await tenant.api.patch<AppReply>(`/v1/applications/${app.id}/models/urn:svc:model:todo`, { indexes: UNIQUE_TITLE_PER_USER });
    expect(edited.status).toBe(200);
    expect(edited.body.serverVersion).toBe('2.0.0'); // a new unique index refuses writes that were accepted: major
    const refused = await tenant.api.post<ProblemBody>(`/v1/applications/${app.id}/publish`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('create unique index on ToDo (title, user)');
    expect(refused.body.detail).toContain('nothing was changed');
    expect(refused.body.errors.map((e) => e.path)).toEqual(['/models/0/indexes/0']);

    // Nothing changed: version 1.0.0 is still the one served, with its rows, and duplicates are still accepted.
    expect((await api.get<Page>('/toDos?sort=title', 'admin')).body).toEqual(before);
    expect(await uniqueIndexes(t, app.id)).toEqual([]);
    expect((await new ServedApi(t, tenant, app.id, '2.0.0').get('/toDos', 'admin')).status).toBe(404);
    expect((await api.post('/toDos', { title: 'Same' }, ann.token)).status).toBe(201);

    // Once the rows no longer collide, the same version publishes and the index holds.
    const rows = (await api.get<Page>('/toDos?filter=' + encodeURIComponent("record.title == 'Same'"), 'admin')).body.items as Rec[];
    for (const row of rows.slice(1)) expect((await api.delete(`/toDos/${row.id}`, 'admin')).status).toBe(204);
    await publish(tenant, app.id);
    expect(await uniqueIndexes(t, app.id)).toHaveLength(1);
    const v2 = new ServedApi(t, tenant, app.id, '2.0.0');
    expect((await v2.post('/toDos', { title: 'Same' }, ann.token)).status).toBe(409);
  }, 180_000);
});
