// The stored search document: each model with text fields gets a generated tsvector column and a
// GIN index over it, which a search by a caller reading every text field matches and ranks on.
// Renaming, adding and removing text fields (each published beside the earlier versions) keeps
// every served version's search right: each reads its own column.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaNameForApp, tableNameForModel } from '../../src/definition/naming.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type Page, type Rec } from './served-app.ts';

const TODO_MODEL = 'urn:svc:model:todo';
const TITLE = 'urn:svc:edge:todo-title';
const DESCRIPTION = 'urn:svc:edge:todo-description';

const ROWS = [
  { title: 'Buy milk', description: 'and bread' },
  { title: 'Walk the dog', description: 'milk bottle on the way, milk milk' },
  { title: 'Write report', description: 'quarterly numbers' },
];

describe.each(await availableDrivers())('stored search column on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: AppReply;
  let v1: ServedApi;
  let ids: string[];

  const searchColumns = async () => {
    const rows = await sql<{ column_name: string; generation_expression: string | null }>`select column_name, generation_expression from information_schema.columns
      where table_schema = ${schemaNameForApp(app.id)} and table_name = ${tableNameForModel(TODO_MODEL)} and is_generated = 'ALWAYS' order by column_name`.execute(t.database.db.kysely);
    return rows.rows;
  };
  const found = async (api: ServedApi, resource: string, search: string) => {
    const reply = await api.get<Page>(`/${resource}?search=${encodeURIComponent(search)}`, 'admin');
    expect(reply.status).toBe(200);
    return reply.body.items.map((item) => item.id);
  };

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Stored search');
    app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, app.id);
    v1 = new ServedApi(t, tenant, app.id, app.serverVersion);
    const ann = await v1.signup('Ann', 'ann@example.test');
    ids = [];
    for (const row of ROWS) {
      const created = await v1.post('/toDos', { ...row, user: ann.user.id }, ann.token);
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
  }, 120_000);
  afterAll(() => t?.close());

  it('stores the search document in a generated column with a GIN index, and ranks on it', async () => {
    const columns = await searchColumns();
    expect(columns).toHaveLength(1);
    expect(columns[0].column_name).toMatch(/^search_[0-9a-f]{8}$/);
    expect(columns[0].generation_expression).toContain('to_tsvector');
    const indexes = await sql<{ indexdef: string }>`select indexdef from pg_indexes where schemaname = ${schemaNameForApp(app.id)} and tablename = ${tableNameForModel(TODO_MODEL)}`.execute(t.database.db.kysely);
    expect(indexes.rows.filter((r) => r.indexdef.includes('USING gin')).map((r) => r.indexdef)).toEqual([expect.stringContaining(`(${columns[0].column_name})`)]);
    // Three "milk" outrank one.
    expect(await found(v1, 'toDos', 'milk')).toEqual([ids[1], ids[0]]);
    // A row written later is searchable at once: PostgreSQL computes the column.
    expect((await v1.patch(`/toDos/${ids[2]}`, { description: 'out of milk' }, 'admin')).status).toBe(200);
    expect((await found(v1, 'toDos', 'milk')).sort()).toEqual([...ids].sort());
    expect((await v1.patch(`/toDos/${ids[2]}`, { description: 'quarterly numbers' }, 'admin')).status).toBe(200);
  });

  it('keeps search right after renaming and adding a text field, in the new version and the old', async () => {
    expect((await tenant.api.patch(`/v1/applications/${app.id}/models/${TODO_MODEL}/fields/${TITLE}`, { name: 'heading' })).status).toBe(200);
    const added = await tenant.api.post<AppReply>(`/v1/applications/${app.id}/models/${TODO_MODEL}/fields`, { name: 'notes', to: 'p_TEXT', min: 0, max: 1 });
    expect(added.status).toBeLessThan(300);
    await publish(tenant, app.id, added.body.serverVersion);
    const v2 = new ServedApi(t, tenant, app.id, added.body.serverVersion);
    expect((await v2.patch(`/toDos/${ids[2]}`, { notes: 'zebra crossing' }, 'admin')).status).toBe(200);

    expect(await searchColumns()).toHaveLength(2);
    expect(await found(v2, 'toDos', 'zebra')).toEqual([ids[2]]);
    expect(await found(v2, 'toDos', 'milk')).toEqual([ids[1], ids[0]]);
    expect(await found(v2, 'toDos', 'report')).toEqual([ids[2]]);
    // The earlier version searches its own fields only, on its own column.
    expect(await found(v1, 'toDos', 'zebra')).toEqual([]);
    expect(await found(v1, 'toDos', 'milk')).toEqual([ids[1], ids[0]]);
  });

  it('keeps search right after removing a text field', async () => {
    const removed = await tenant.api.delete<AppReply>(`/v1/applications/${app.id}/models/${TODO_MODEL}/fields/${DESCRIPTION}`);
    expect(removed.status).toBeLessThan(300);
    await publish(tenant, app.id, removed.body.serverVersion);
    const v3 = new ServedApi(t, tenant, app.id, removed.body.serverVersion);
    // "bottle" was only in the removed description.
    expect(await found(v3, 'toDos', 'bottle')).toEqual([]);
    expect(await found(v3, 'toDos', 'milk')).toEqual([ids[0]]);
    expect(await found(v3, 'toDos', 'zebra')).toEqual([ids[2]]);
    // A write through the newest version updates every stored document, the old version's too.
    expect((await v3.patch(`/toDos/${ids[0]}`, { heading: 'Buy cheese' }, 'admin')).status).toBe(200);
    expect(await found(v3, 'toDos', 'milk')).toEqual([]);
    expect(await found(v1, 'toDos', 'milk')).toEqual([ids[1]]);
    expect(await found(v1, 'toDos', 'bottle')).toEqual([ids[1]]);
    const page = await v3.get<Page>('/toDos?search=cheese', 'admin');
    expect((page.body.items as Rec[]).map((r) => r.heading)).toEqual(['Buy cheese']);
  });
});
