// The to-do example published from a clean store and read through spec endpoints 11-13 over real
// HTTP: every member and its type, the one-level expansion, and `{items, total, offset}`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, type Page, type Rec } from './served-app.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

type Kind = 'uuid' | 'string' | 'date-time' | 'uuid[]' | 'object' | 'object[]';

/** Checks that `value` has exactly the members of `shape`, each of its kind. */
function expectShape(value: unknown, shape: Record<string, Kind>, where: string): void {
  expect(value, where).toBeTypeOf('object');
  expect(value, where).not.toBeNull();
  const record = value as Record<string, unknown>;
  expect(Object.keys(record).sort(), `${where}: members`).toEqual(Object.keys(shape).sort());
  for (const [name, kind] of Object.entries(shape)) {
    const member = record[name];
    const at = `${where}.${name}`;
    switch (kind) {
      case 'uuid':
        expect(member, at).toMatch(UUID);
        break;
      case 'string':
        expect(member, at).toBeTypeOf('string');
        break;
      case 'date-time':
        expect(member, at).toMatch(DATE_TIME);
        expect(Number.isNaN(Date.parse(member as string)), at).toBe(false);
        break;
      case 'uuid[]':
        expect(Array.isArray(member), at).toBe(true);
        for (const item of member as unknown[]) expect(item, at).toMatch(UUID);
        break;
      case 'object':
        expect(member, at).toBeTypeOf('object');
        expect(Array.isArray(member), at).toBe(false);
        expect(member, at).not.toBeNull();
        break;
      case 'object[]':
        expect(Array.isArray(member), at).toBe(true);
        for (const item of member as unknown[]) expect(item, at).toBeTypeOf('object');
        break;
    }
  }
}

const TODO = { id: 'uuid', title: 'string', description: 'string', deadline: 'date-time', status: 'string', user: 'object' } as const;
const TODO_IN_USER = { ...TODO, user: 'uuid' } as const;
const USER = { id: 'uuid', name: 'string', email: 'string', todos: 'object[]' } as const;
const USER_IN_TODO = { ...USER, todos: 'uuid[]' } as const;

describe.each(await availableDrivers())('the to-do example over HTTP on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: AppReply;
  let api: ServedApi;
  let ann: { token: string; user: Rec };
  let bob: { token: string; user: Rec };
  const annTodos: Rec[] = [];

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Shapes');
    app = await createTodoApp(tenant);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
  });
  afterAll(() => t?.close());

  it('publishes the example from a clean store and serves it at /api/v1.0.1', async () => {
    expect(app.serverVersion).toBe('1.0.1');
    expect((await api.get('/toDos')).status).toBe(404);
    const published = await publish(tenant, app.id);
    expect(published.isActive).toBe(true);
    expect(Date.parse(published.lastPublishedAt!)).not.toBeNaN();
    expect(api.base.endsWith(`/apps/${app.id}/api/v1.0.1`)).toBe(true);
    const list = await api.get<Page>('/toDos', 'admin');
    expect(list.status).toBe(200);
    expect(list.contentType).toContain('application/json');
    expect(list.body).toEqual({ items: [], total: 0, offset: 0 });
  });

  it('creates users and their to-dos through the generated API', async () => {
    ann = await api.signup('Ann', 'ann@example.test');
    bob = await api.signup('Bob', 'bob@example.test');
    for (let i = 0; i < 3; i++) {
      const created = await api.post(
        '/toDos',
        { title: `Ann ${i}`, description: `details ${i}`, deadline: `2030-01-0${i + 1}T09:00:00Z`, user: ann.user.id },
        ann.token,
      );
      expect(created.status).toBe(201);
      annTodos.push(created.body);
    }
    const bobs = await api.post('/toDos', { title: 'Bob 0', description: 'his', deadline: '2031-05-05T10:00:00.000Z', user: bob.user.id }, bob.token);
    expect(bobs.status).toBe(201);
  });

  // The example's event trigger may add a welcome to-do (no description, no deadline) for each
  // new user whenever events run: the checks below hold with it and without it.
  it('endpoint 11: GET /toDos is {items, total, offset}; each user is an object whose todos are ids', async () => {
    const reply = await api.get<Page>('/toDos?limit=1000', ann.token);
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(['items', 'offset', 'total']);
    expect(Number.isInteger(reply.body.total)).toBe(true);
    expect(Number.isInteger(reply.body.offset)).toBe(true);
    expect(reply.body.total).toBe(reply.body.items.length);
    expect(reply.body.offset).toBe(0);
    const ids = reply.body.items.map((item) => item.id);
    for (const todo of annTodos) expect(ids).toContain(todo.id);
    reply.body.items.forEach((item, i) => {
      const mine = annTodos.some((todo) => todo.id === item.id);
      // Every member is present; the optional ones of a to-do made without them are null.
      expectShape(mine ? item : { ...item, description: 'x', deadline: '2000-01-01T00:00:00Z' }, TODO, `items[${i}]`);
      expectShape(item.user, USER_IN_TODO, `items[${i}].user`);
      const user = item.user as Rec;
      expect(user.id).toBe(ann.user.id);
      expect(user.name).toBe('Ann');
      expect(user.email).toBe('ann@example.test');
      expect((user.todos as string[]).sort()).toEqual([...ids].sort());
      expect(item.status).toBe('open');
    });
    const first = reply.body.items.find((item) => item.id === annTodos[0].id)!;
    expect(first.title).toBe('Ann 0');
    expect(first.description).toBe('details 0');
    expect(Date.parse(first.deadline as string)).toBe(Date.parse('2030-01-01T09:00:00Z'));
  });

  it('endpoint 11 pages with limit and offset; the administrator sees every to-do', async () => {
    const mine = encodeURIComponent("record.title.startsWith('Ann ')");
    const page = await api.get<Page>(`/toDos?limit=2&offset=1&sort=title&filter=${mine}`, ann.token);
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(3);
    expect(page.body.offset).toBe(1);
    expect(page.body.items.map((item) => item.title)).toEqual(['Ann 1', 'Ann 2']);
    const all = await api.get<Page>('/toDos?limit=1000', 'admin');
    expect(all.body.total).toBe(all.body.items.length);
    expect(all.body.items.filter((item) => /^(Ann|Bob) \d$/.test(item.title as string))).toHaveLength(4);
    all.body.items.forEach((item, i) => {
      expectShape({ ...item, description: item.description ?? 'x', deadline: item.deadline ?? '2000-01-01T00:00:00Z' }, TODO, `admin items[${i}]`);
      expectShape(item.user, USER_IN_TODO, `admin items[${i}].user`);
    });
  });

  it('endpoint 12: GET /toDos/{id} is a ToDo with its user expanded one level', async () => {
    const reply = await api.get(`/toDos/${annTodos[1].id}`, ann.token);
    expect(reply.status).toBe(200);
    expectShape(reply.body, TODO, 'toDo');
    expectShape(reply.body.user, USER_IN_TODO, 'toDo.user');
    expect(reply.body).toMatchObject({ id: annTodos[1].id, title: 'Ann 1', description: 'details 1', status: 'open' });
    expect((reply.body.user as Rec).id).toBe(ann.user.id);
  });

  it('endpoint 13: GET /users/{id} is a User whose todos are ToDo objects carrying user as an id', async () => {
    const reply = await api.get(`/users/${ann.user.id}`, ann.token);
    expect(reply.status).toBe(200);
    expectShape(reply.body, USER, 'user');
    expect(reply.body).toMatchObject({ id: ann.user.id, name: 'Ann', email: 'ann@example.test' });
    const todos = reply.body.todos as Rec[];
    for (const todo of annTodos) expect(todos.map((t) => t.id)).toContain(todo.id);
    todos.forEach((todo, i) => {
      const mine = annTodos.some((t) => t.id === todo.id);
      expectShape(mine ? todo : { ...todo, description: 'x', deadline: '2000-01-01T00:00:00Z' }, TODO_IN_USER, `user.todos[${i}]`);
      expect(todo.user).toBe(ann.user.id);
    });
    const one = todos.find((todo) => todo.id === annTodos[2].id)!;
    expect(one).toMatchObject({ title: 'Ann 2', description: 'details 2', status: 'open', user: ann.user.id });
  });

  it('answers a missing or malformed id with 404 problem+json', async () => {
    const missing = await api.get(`/toDos/${bob.user.id}`, ann.token);
    expect(missing.status).toBe(404);
    expect(missing.contentType).toContain('application/problem+json');
    expect((await api.get('/toDos/not-a-uuid', ann.token)).status).toBe(404);
    expect((await api.get('/users/00000000-0000-4000-8000-000000000000', 'admin')).status).toBe(404);
  });
});
