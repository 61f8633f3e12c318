// What of the signed-in end user a request loads as `auth` (src/runtime/auth-reads.ts): only the
// fields the app's expressions read. Checked on the compiled definitions, then over real HTTP on
// an app whose to-do rule reads `auth.todos` (a to-many relation), and on one whose action returns
// `auth` whole: access stays right, /auth/me keeps the whole record, a list filter that reads a
// field no rule reads still sees it, and a deleted user's token stops working.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { authFields } from '../../src/runtime/auth-reads.ts';
import { compileApp } from '../../src/runtime/compiled-app.ts';
import { availableDrivers } from '../support/databases.ts';
import { todoScode } from '../support/examples.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, whoamiScode, type Page, type Rec } from './served-app.ts';

type Scode = ReturnType<typeof todoScode> & { triggers: unknown[]; actions: unknown[] };

/** The example whose to-dos are readable, changeable and deletable through `auth.todos` only. */
function relationRuleScode(): Scode {
  const scode = todoScodeWithoutEvents() as Scode;
  const todo = (scode.models as Array<{ id: string; accessControl: unknown }>).find((m) => m.id === 'urn:svc:model:todo')!;
  todo.accessControl = {
    rules: [{ access: 'allow', criteria: "auth != null && ((operation == 'create' && record.user == auth.id) || (operation != 'create' && record.id in auth.todos))" }],
    defaultAccess: 'deny',
  };
  return scode;
}

/** The example plus `GET /whoami`, whose action answers with `auth` itself. */
const wholeAuthScode = (): Scode => whoamiScode('auth') as Scode;

const fieldNames = (scode: Scode) => {
  const fields = authFields(compileApp('00000000-0000-4000-8000-000000000001', '1.0.1', scode as unknown as AppDefinition));
  return fields && fields.map((f) => f.name);
};

describe('the fields of auth an app reads', () => {
  it('is none besides the id for the example, whose rules and action read auth.id only', () => {
    expect(fieldNames(todoScode() as Scode)).toEqual([]);
  });

  it('is a to-many relation when a rule reads it', () => {
    expect(fieldNames(relationRuleScode())).toEqual(['todos']);
  });

  it('is every field when an expression uses auth as a value', () => {
    expect(fieldNames(wholeAuthScode())).toBeNull();
  });
});

describe.each(await availableDrivers())('auth loaded as the app reads it, on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let whole: ServedApi;
  let ann: { token: string; user: Rec };
  let bob: { token: string; user: Rec };
  const annTodos: string[] = [];

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Auth reads');
    const app = await createTodoApp(tenant, relationRuleScode());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    const other = await createTodoApp(tenant, wholeAuthScode());
    await publish(tenant, other.id);
    whole = new ServedApi(t, tenant, other.id, other.serverVersion);
    ann = await api.signup('Ann', 'ann@example.test');
    bob = await api.signup('Bob', 'bob@example.test');
  });
  afterAll(() => t?.close());

  it('grants access through auth.todos: the owner reads, changes and lists their to-dos, another user none', async () => {
    for (const title of ['one', 'two']) {
      const created = await api.post('/toDos', { title, status: 'open', user: ann.user.id }, ann.token);
      expect(created.status).toBe(201);
      annTodos.push(created.body.id);
    }
    const bobs = await api.post('/toDos', { title: 'bob', status: 'open', user: bob.user.id }, bob.token);
    expect(bobs.status).toBe(201);

    const read = await api.get(`/toDos/${annTodos[0]}`, ann.token);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: annTodos[0], title: 'one' });
    expect((await api.patch(`/toDos/${annTodos[1]}`, { status: 'done' }, ann.token)).body).toMatchObject({ status: 'done' });
    const list = await api.get<Page>('/toDos', ann.token);
    expect(list.body.total).toBe(2);
    expect(list.body.items.map((r) => r.id).sort()).toEqual([...annTodos].sort());

    expect((await api.get(`/toDos/${annTodos[0]}`, bob.token)).status).toBe(404);
    expect((await api.patch(`/toDos/${annTodos[0]}`, { status: 'done' }, bob.token)).status).toBe(404);
    expect((await api.get<Page>('/toDos', bob.token)).body.items.map((r) => r.id)).toEqual([bobs.body.id]);
  });

  it('answers /auth/me with the whole record, to-dos included', async () => {
    const me = await api.get('/auth/me', ann.token);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: ann.user.id, name: 'Ann', email: 'ann@example.test' });
    const todos = (me.body.todos as Array<string | Rec>).map((x) => (typeof x === 'string' ? x : x.id));
    expect(todos.sort()).toEqual([...annTodos].sort());
  });

  it('loads what a list filter reads of auth when no rule reads it', async () => {
    const filter = (source: string) => `/toDos?filter=${encodeURIComponent(source)}`;
    const named = await api.get<Page>(filter("auth.name == 'Ann' && auth.email.startsWith('ann@')"), ann.token);
    expect(named.status).toBe(200);
    expect(named.body.total).toBe(2);
    const notBob = await api.get<Page>(filter("auth.name == 'Ann'"), bob.token);
    expect(notBob.status).toBe(200);
    expect(notBob.body.total).toBe(0);
    const loaded = await api.get<Page>(filter(`record.id in auth.todos && record.title == 'two'`), ann.token);
    expect(loaded.body.items.map((r) => r.id)).toEqual([annTodos[1]]);
  });

  it('gives the whole record to an action that uses auth as a value', async () => {
    const cid = await whole.signup('Cid', 'cid@example.test');
    const todo = await whole.post('/toDos', { title: 'mine', status: 'open', user: cid.user.id }, cid.token);
    expect(todo.status).toBe(201);
    const me = await whole.get('/whoami', cid.token);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: cid.user.id, name: 'Cid', email: 'cid@example.test', todos: [todo.body.id] });
  });

  it('refuses the token of a user who was deleted', async () => {
    const dan = await api.signup('Dan', 'dan@example.test');
    expect((await api.get('/auth/me', dan.token)).status).toBe(200);
    expect((await api.delete(`/users/${dan.user.id}`, 'admin')).status).toBe(204);
    expect((await api.get('/auth/me', dan.token)).status).toBe(401);
    expect((await api.get('/toDos', dan.token)).status).toBe(401);
  });
});
