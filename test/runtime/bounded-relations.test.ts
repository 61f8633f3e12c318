// Bounded relations, sparse fields and `limit=0` (DESIGN §6, issue 17) over real HTTP: a user with
// 10,000 to-dos (a foreign key) and a project with 10,000 members (a join table). Lists and single
// reads hold at most APPBUILDER_RELATION_LIMIT (100) related entries, the first by id, and the id
// arrays inside embedded records at most APPBUILDER_EMBEDDED_ID_LIMIT (10); the
// sub-collection route pages through all 10,000 with exact totals, under the related model's read
// rule and only when the parent is readable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { compileApp, type CompiledApp } from '../../src/runtime/compiled-app.ts';
import { ident } from '../../src/storage/sql.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type Page, type ProblemBody, type Rec } from './served-app.ts';

const RELATED = 10_000;
const CAP = 100;
const EMBEDDED_CAP = 10;
const PROJECT = 'urn:svc:model:project';
const field = (id: string, name: string, to: string, extra: Record<string, unknown> = {}) => ({
  id, name, relationshipOwner: true, min: 0, max: 1, to, accessControl: { rules: [] }, ...extra,
});

/** The to-do example plus a hidden to-do field and projects whose members (a many-to-many set) read them. */
function definition() {
  const scode = todoScodeWithoutEvents() as unknown as { models: Array<{ id: string; name: string; fields: unknown[]; accessControl: unknown }> };
  const todo = scode.models.find((m) => m.id === 'urn:svc:model:todo')!;
  todo.fields.push(field('urn:svc:edge:todo-secret', 'secret', 'p_TEXT', { accessControl: { rules: [], defaultAccess: 'deny' } }));
  const user = scode.models.find((m) => m.id === 'urn:svc:model:user')!;
  user.fields.push(field('urn:svc:edge:user-projects', 'projects', PROJECT, { max: null }));
  scode.models.push({
    id: PROJECT,
    name: 'Project',
    accessControl: { rules: [{ access: 'allow', criteria: 'auth != null && auth.id in record.members' }], defaultAccess: 'deny' },
    fields: [field('urn:svc:edge:project-name', 'name', 'p_TEXT', { min: 1 }), field('urn:svc:edge:project-members', 'members', 'urn:svc:model:user', { max: null })],
  });
  return scode;
}

const sorted = (ids: string[]) => [...ids].sort();

describe.each(await availableDrivers())('bounded relations and sparse fields on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let app: CompiledApp;
  let ann: { token: string; user: Rec };
  let bob: { token: string; user: Rec };
  let annTodos: string[];
  let members: string[];
  let projectId: string;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Bounded');
    const created = await createTodoApp(tenant, definition());
    await publish(tenant, created.id);
    api = new ServedApi(t, tenant, created.id, created.serverVersion);
    app = compileApp(created.id, created.serverVersion, created.scode as unknown as AppDefinition);
    ann = await api.signup('Ann', 'ann@example.com');
    bob = await api.signup('Bob', 'bob@example.com');
    for (const title of ['b1', 'b2', 'b3']) expect((await api.post('/toDos', { title }, bob.token)).status).toBe(201);
    // The bulk by SQL into the published schema (10,000 writes through the API would measure nothing here).
    const db = t.platform.db.kysely;
    const todo = app.modelsByResource.get('toDos')!;
    const users = app.userModel!;
    const project = app.modelsById.get(PROJECT)!;
    const c = (model: typeof todo, name: string) => ident(model.fieldsByName.get(name)!.column!);
    await sql`insert into ${ident(app.schema, todo.table)} (id, ${c(todo, 'title')}, ${c(todo, 'status')}, ${c(todo, 'secret')}, ${c(todo, 'user')})
      select gen_random_uuid(), 'To-do ' || n, 'open', 'hidden ' || n, cast(${ann.user.id} as uuid) from generate_series(1, ${RELATED}::int) n`.execute(db);
    await sql`insert into ${ident(app.schema, users.table)} (id, ${c(users, 'name')}, ${c(users, 'email')})
      select gen_random_uuid(), 'Member ' || n, 'member' || n || '@example.com' from generate_series(1, ${RELATED - 1}::int) n`.execute(db);
    projectId = (await api.post('/projects', { name: 'Big', members: [] }, 'admin')).body.id;
    const storage = project.fieldsByName.get('members')!.relation!.storage;
    if (storage.kind !== 'joinTable') throw new Error('members is expected in a join table');
    await sql`insert into ${ident(app.schema, storage.table)} (${ident(storage.selfColumn)}, ${ident(storage.otherColumn)})
      select cast(${projectId} as uuid), id from ${ident(app.schema, users.table)} where id <> cast(${bob.user.id} as uuid)`.execute(db);
    annTodos = (await sql<{ id: string }>`select id from ${ident(app.schema, todo.table)} where ${c(todo, 'user')} = cast(${ann.user.id} as uuid) order by id`.execute(db)).rows.map((r) => r.id);
    members = (await sql<{ id: string }>`select ${ident(storage.otherColumn)} as id from ${ident(app.schema, storage.table)} order by 1`.execute(db)).rows.map((r) => r.id);
    expect(annTodos).toHaveLength(RELATED);
    expect(members).toHaveLength(RELATED);
  }, 180_000);
  afterAll(() => t?.close());

  it('caps the to-many ids inside embedded records of a list at the first 10 by id', async () => {
    const page = await api.get<Page>('/toDos?limit=5', ann.token);
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(RELATED);
    for (const item of page.body.items) expect((item.user as Rec).todos).toEqual(annTodos.slice(0, EMBEDDED_CAP));
    const asAdmin = await api.get<Page>(`/projects/${projectId}`, 'admin');
    expect((asAdmin.body as unknown as Rec).members as Rec[]).toHaveLength(CAP);
  });

  it('caps the to-many expansion of a single record, FK and join table', async () => {
    const me = await api.get(`/users/${ann.user.id}`, ann.token);
    expect(me.status).toBe(200);
    expect((me.body.todos as Rec[]).map((r) => r.id)).toEqual(annTodos.slice(0, CAP));
    const project = await api.get(`/projects/${projectId}`, 'admin');
    expect((project.body.members as Rec[]).map((r) => r.id)).toEqual(members.slice(0, CAP));
    // Inside each expanded member, its own to-many ids are placeholders, bounded by the embedded cap.
    const annInProject = (project.body.members as Rec[]).find((m) => m.id === ann.user.id);
    if (annInProject) expect(annInProject.todos).toEqual(annTodos.slice(0, EMBEDDED_CAP));
  });

  it('pages through all 10,000 to-dos of a user at the sub-collection route with exact totals', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < RELATED; offset += 1000) {
      const page = await api.get<Page>(`/users/${ann.user.id}/todos?limit=1000&offset=${offset}&fields=title`, ann.token);
      expect(page.status).toBe(200);
      expect(page.body.total).toBe(RELATED);
      expect(page.body.offset).toBe(offset);
      expect(page.body.items).toHaveLength(1000);
      seen.push(...page.body.items.map((r) => r.id));
    }
    expect(seen).toEqual(annTodos);
    const past = await api.get<Page>(`/users/${ann.user.id}/todos?offset=${RELATED}`, ann.token);
    expect(past.body).toEqual({ items: [], total: RELATED, offset: RELATED });
  });

  it('pages through all 10,000 members of a join table for the administrator', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < RELATED; offset += 1000) {
      const page = await api.get<Page>(`/projects/${projectId}/members?limit=1000&offset=${offset}&fields=name`, 'admin');
      expect(page.status).toBe(200);
      expect(page.body.total).toBe(RELATED);
      seen.push(...page.body.items.map((r) => r.id));
    }
    expect(seen).toEqual(members);
  });

  it('counts only the related records the caller may read, and 404s an unreadable parent', async () => {
    // Ann is a member: she reads the project, but of its members only her own user record.
    const mine = await api.get<Page>(`/projects/${projectId}/members`, ann.token);
    expect(mine.status).toBe(200);
    expect(mine.body.total).toBe(1);
    expect(mine.body.items.map((r) => r.id)).toEqual([ann.user.id]);
    // Bob is no member and may not read Ann's user record.
    expect((await api.get<ProblemBody>(`/projects/${projectId}/members`, bob.token)).status).toBe(404);
    const other = await api.get<ProblemBody>(`/users/${ann.user.id}/todos`, bob.token);
    expect(other.status).toBe(404);
    expect(other.contentType).toContain('application/problem+json');
    expect((await api.get(`/users/${ann.user.id}/todos`)).status).toBe(404);
    expect((await api.get(`/users/00000000-0000-4000-8000-000000000000/todos`, 'admin')).status).toBe(404);
  });

  it('applies sort and filter on the sub-collection', async () => {
    const one = await api.get<Page>(`/users/${ann.user.id}/todos?filter=${encodeURIComponent("record.title == 'To-do 77'")}`, ann.token);
    expect(one.body.total).toBe(1);
    expect(one.body.items[0].title).toBe('To-do 77');
    const last = await api.get<Page>(`/users/${ann.user.id}/todos?sort=-id&limit=3&fields=title`, ann.token);
    expect(last.body.items.map((r) => r.id)).toEqual(annTodos.slice(-3).reverse());
    const bad = await api.get<ProblemBody>(`/users/${ann.user.id}/todos?sort=nope`, ann.token);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('/sort');
  });

  it('narrows members with fields=: relationships stay ids unless expanded', async () => {
    const plain = await api.get<Page>('/toDos?limit=2&fields=title,user', ann.token);
    expect(plain.status).toBe(200);
    for (const item of plain.body.items) {
      expect(Object.keys(item).sort()).toEqual(['id', 'title', 'user']);
      expect(item.user).toBe(ann.user.id);
    }
    const named = await api.get<Page>('/toDos?limit=2&fields=title,deadline,user.name', ann.token);
    for (const item of named.body.items) {
      expect(Object.keys(item).sort()).toEqual(['deadline', 'id', 'title', 'user']);
      expect(item.user).toEqual({ id: ann.user.id, name: 'Ann' });
    }
    const all = await api.get<Page>('/toDos?limit=1&fields=user.*', ann.token);
    expect(Object.keys(all.body.items[0]).sort()).toEqual(['id', 'user']);
    expect(Object.keys(all.body.items[0].user as Rec).sort()).toEqual(['email', 'id', 'name', 'projects', 'todos']);
    expect((all.body.items[0].user as Rec).todos).toHaveLength(EMBEDDED_CAP);
    const single = await api.get(`/users/${ann.user.id}?fields=name,todos`, ann.token);
    expect(single.body).toEqual({ id: ann.user.id, name: 'Ann', todos: annTodos.slice(0, CAP) });
    const expanded = await api.get(`/users/${ann.user.id}?fields=todos.title`, ann.token);
    expect((expanded.body.todos as Rec[]).slice(0, 2)).toEqual(
      await Promise.all(annTodos.slice(0, 2).map(async (id) => ({ id, title: (await api.get(`/toDos/${id}?fields=title`, ann.token)).body.title }))),
    );
  });

  it('answers 400 naming unknown and hidden fields, for lists, single reads and sub-collections', async () => {
    for (const path of ['/toDos?fields=title,nope,secret,user.password', `/toDos/${annTodos[0]}?fields=title,nope,secret,user.password`, `/users/${ann.user.id}/todos?fields=title,nope,secret,user.password`]) {
      const reply = await api.get<ProblemBody>(path, ann.token);
      expect(reply.status, path).toBe(400);
      expect(reply.contentType).toContain('application/problem+json');
      expect(reply.body.errors.map((e) => e.path)).toEqual(['/fields', '/fields', '/fields']);
      expect(reply.body.errors.map((e) => e.message.split("'")[1])).toEqual(['nope', 'secret', 'user.password']);
    }
    // Not hidden from the administrator.
    const admin = await api.get<Page>('/toDos?limit=1&fields=secret', 'admin');
    expect(admin.status).toBe(200);
    expect(admin.body.items[0].secret).toMatch(/^hidden /);
    expect((await api.get<ProblemBody>('/toDos?fields=title.x', ann.token)).status).toBe(400);
    expect((await api.get<ProblemBody>('/toDos?fields=user.todos.title', ann.token)).status).toBe(400);
  });

  it('answers limit=0 with the exact total and no items; limit above 1000 is a 400', async () => {
    expect((await api.get<Page>('/toDos?limit=0', ann.token)).body).toEqual({ items: [], total: RELATED, offset: 0 });
    expect((await api.get<Page>('/toDos?limit=0', bob.token)).body).toEqual({ items: [], total: 3, offset: 0 });
    expect((await api.get<Page>('/toDos?limit=0', 'admin')).body).toEqual({ items: [], total: RELATED + 3, offset: 0 });
    expect((await api.get<Page>(`/users/${ann.user.id}/todos?limit=0`, ann.token)).body).toEqual({ items: [], total: RELATED, offset: 0 });
    const filtered = await api.get<Page>(`/toDos?limit=0&filter=${encodeURIComponent("record.title == 'b2'")}`, bob.token);
    expect(filtered.body).toEqual({ items: [], total: 1, offset: 0 });
    const tooMany = await api.get<ProblemBody>('/toDos?limit=1001', ann.token);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors[0].path).toBe('/limit');
  });

  it('states the cap, the sub-collection routes and fields in the version OpenAPI', async () => {
    const doc = (await api.get<Record<string, unknown>>('/openapi.json')).body as {
      paths: Record<string, { get?: { parameters?: Array<{ name: string; schema: Record<string, unknown> }> } }>;
      components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> };
    };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/users/{id}/todos', '/users/{id}/projects', '/projects/{id}/members']));
    expect(doc.components.schemas.UserEmbedded.properties.todos.maxItems).toBe(EMBEDDED_CAP);
    expect(String(doc.components.schemas.UserEmbedded.properties.todos.description)).toContain('APPBUILDER_EMBEDDED_ID_LIMIT');
    expect(doc.components.schemas.User.properties.todos.maxItems).toBe(CAP);
    expect(String(doc.components.schemas.User.properties.todos.description)).toContain('APPBUILDER_RELATION_LIMIT');
    const listParams = doc.paths['/toDos'].get!.parameters!;
    expect(listParams.map((p) => p.name)).toContain('fields');
    expect(listParams.find((p) => p.name === 'limit')!.schema.minimum).toBe(0);
    expect(doc.paths['/toDos/{id}'].get!.parameters!.map((p) => p.name)).toContain('fields');
    expect(sorted(Object.keys(doc.paths['/users/{id}/todos'].get!))).toEqual(expect.arrayContaining(['operationId', 'parameters', 'responses']));
  });
});
