// Field rules over real HTTP: a field whose rules deny the caller is refused on create, update and
// sign-up (403 naming the field, nothing changed) and hidden on read: in lists, single records,
// embedded records, and the end user's own record from sign-up, log-in and /auth/me.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type Page, type ProblemBody, type Rec } from './served-app.ts';

const field = (id: string, name: string, to: string, accessControl: unknown, extra: Record<string, unknown> = {}) => ({
  id, name, relationshipOwner: true, min: 0, max: 1, to, accessControl, ...extra,
});

/**
 * A shared board: every signed-in user reads and changes every to-do and reads every user.
 * Field rules: User.email only for oneself, User.role read by all and written by nobody,
 * User.secret never, ToDo.privateNote only for the to-do's owner.
 */
function definition() {
  const scode = todoScodeWithoutEvents() as unknown as { models: Array<{ id: string; fields: Array<{ name: string; accessControl: unknown }>; accessControl: unknown }> };
  const todo = scode.models.find((m) => m.id === 'urn:svc:model:todo')!;
  const user = scode.models.find((m) => m.id === 'urn:svc:model:user')!;
  todo.accessControl = { rules: [{ access: 'allow', criteria: 'auth != null' }], defaultAccess: 'deny' };
  user.accessControl = { rules: [{ access: 'allow', criteria: "auth != null && (operation == 'read' || record.id == auth.id)" }], defaultAccess: 'deny' };
  user.fields.find((f) => f.name === 'email')!.accessControl = { rules: [{ access: 'allow', criteria: 'auth != null && record.id == auth.id' }], defaultAccess: 'deny' };
  user.fields.push(
    field('urn:svc:edge:user-role', 'role', 'p_TEXT', { rules: [{ access: 'allow', criteria: "operation == 'read'" }], defaultAccess: 'deny' }, { defaultValue: 'member' }),
    field('urn:svc:edge:user-secret', 'secret', 'p_TEXT', { rules: [{ access: 'deny', criteria: 'true' }] }),
  );
  todo.fields.push(
    field('urn:svc:edge:todo-private-note', 'privateNote', 'p_TEXT', { rules: [{ access: 'allow', criteria: 'auth != null && record.user == auth.id' }], defaultAccess: 'deny' }),
  );
  return scode;
}

const refusedFields = (body: ProblemBody) => body.errors.map((e) => e.path);

describe.each(await availableDrivers())('field rules over HTTP on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let ann: { token: string; user: Rec };
  let bob: { token: string; user: Rec };
  let annTodo: Rec;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Field rules');
    const app = await createTodoApp(tenant, definition());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
  });
  afterAll(() => t?.close());

  it('signs up with the default of a field the user may not write, and returns their record without hidden fields', async () => {
    ann = await api.signup('Ann', 'ann@example.test');
    bob = await api.signup('Bob', 'bob@example.test');
    expect(ann.user).toEqual({ id: ann.user.id, name: 'Ann', email: 'ann@example.test', role: 'member', todos: [] });
    expect((await api.get(`/users/${ann.user.id}`, 'admin')).body).toMatchObject({ role: 'member', secret: null });
  });

  it('refuses a sign-up that sets a field the user may not write, and creates no account', async () => {
    const reply = await api.post<ProblemBody>('/auth/signup', { name: 'Eve', email: 'eve@example.test', password: 'correct horse', role: 'admin' });
    expect(reply.status).toBe(403);
    expect(refusedFields(reply.body)).toEqual(['/role']);
    expect((await api.post('/auth/login', { email: 'eve@example.test', password: 'correct horse' })).status).toBe(401);
  });

  it('hides never-readable fields from /auth/me and log-in, while the administrator sees and sets them', async () => {
    const set = await api.patch(`/users/${ann.user.id}`, { secret: 'the key', role: 'lead' }, 'admin');
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ secret: 'the key', role: 'lead' });
    const me = await api.get('/auth/me', ann.token);
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ id: ann.user.id, name: 'Ann', email: 'ann@example.test', role: 'lead', todos: [] });
    const login = await api.post<{ token: string; user: Rec }>('/auth/login', { email: 'ann@example.test', password: 'correct horse' });
    expect(login.status).toBe(200);
    expect(login.body.user).toEqual(me.body);
    expect(JSON.stringify((await api.get(`/users/${ann.user.id}`, ann.token)).body)).not.toContain('the key');
  });

  it('refuses an update that sets a field the caller may not write, naming each, and changes nothing', async () => {
    const reply = await api.patch<ProblemBody>(`/users/${ann.user.id}`, { name: 'Ann B', role: 'admin', secret: 'mine' }, ann.token);
    expect(reply.status).toBe(403);
    expect(refusedFields(reply.body).sort()).toEqual(['/role', '/secret']);
    expect((await api.get(`/users/${ann.user.id}`, 'admin')).body).toMatchObject({ name: 'Ann', role: 'lead', secret: 'the key' });
    const allowed = await api.patch(`/users/${ann.user.id}`, { name: 'Ann B', email: 'ann@example.test' }, ann.token);
    expect(allowed.status).toBe(200);
    expect(allowed.body.name).toBe('Ann B');
  });

  it('hides a row-dependent field from others on read, in single records, lists and embedded records', async () => {
    const created = await api.post('/toDos', { title: 'Ann’s', privateNote: 'only mine', user: ann.user.id }, ann.token);
    expect(created.status).toBe(201);
    annTodo = created.body;
    expect(annTodo.privateNote).toBe('only mine');
    expect((annTodo.user as Rec).email).toBe('ann@example.test');

    const seenByBob = await api.get(`/toDos/${annTodo.id}`, bob.token);
    expect(seenByBob.status).toBe(200);
    expect(seenByBob.body).not.toHaveProperty('privateNote');
    expect(seenByBob.body.title).toBe('Ann’s');
    // The embedded user: name and role, no email, no secret.
    expect(Object.keys(seenByBob.body.user as Rec).sort()).toEqual(['id', 'name', 'role', 'todos']);
    const bobsOwn = await api.post('/toDos', { title: 'Bob’s', privateNote: 'his', user: bob.user.id }, bob.token);
    expect(bobsOwn.status).toBe(201);
    const list = await api.get<Page>('/toDos?limit=100', bob.token);
    const byId = new Map(list.body.items.map((item) => [item.id, item]));
    expect(byId.get(annTodo.id)).not.toHaveProperty('privateNote');
    expect(byId.get(bobsOwn.body.id)!.privateNote).toBe('his');
    expect((byId.get(bobsOwn.body.id)!.user as Rec).email).toBe('bob@example.test');
    const annAsSeen = await api.get(`/users/${ann.user.id}`, bob.token);
    expect(Object.keys(annAsSeen.body).sort()).toEqual(['id', 'name', 'role', 'todos']);
    // Nor can it be probed through a filter.
    expect((await api.get(`/toDos?filter=${encodeURIComponent("record.privateNote == 'only mine'")}`, bob.token)).status).toBe(400);
  });

  it('refuses a row-dependent field on update and create where the rule fails on the row', async () => {
    const update = await api.patch<ProblemBody>(`/toDos/${annTodo.id}`, { title: 'retitled', privateNote: 'Bob was here' }, bob.token);
    expect(update.status).toBe(403);
    expect(refusedFields(update.body)).toEqual(['/privateNote']);
    expect((await api.get(`/toDos/${annTodo.id}`, 'admin')).body).toMatchObject({ title: 'Ann’s', privateNote: 'only mine' });
    // The model's rule lets Bob change the other fields.
    expect((await api.patch(`/toDos/${annTodo.id}`, { title: 'retitled' }, bob.token)).status).toBe(200);

    const before = (await api.get<Page>('/toDos?limit=1', 'admin')).body.total;
    const create = await api.post<ProblemBody>('/toDos', { title: 'for Ann', privateNote: 'sneaky', user: ann.user.id }, bob.token);
    expect(create.status).toBe(403);
    expect(refusedFields(create.body)).toEqual(['/privateNote']);
    expect((await api.get<Page>('/toDos?limit=1', 'admin')).body.total).toBe(before);
    expect((await api.post('/toDos', { title: 'for Ann', user: ann.user.id }, bob.token)).status).toBe(201);
  });
});
