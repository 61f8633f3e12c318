// Writing a relationship from the other side (User.todos re-points ToDo.user; a many-to-many set
// adds pairs to a join table) changes the target rows, so the target model's rules apply: nobody
// takes over someone else's records by listing them, and sign-up sets no relationships.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type ProblemBody, type Rec } from './served-app.ts';

const PROJECT = 'urn:svc:model:project';
const field = (id: string, name: string, to: string, extra: Record<string, unknown> = {}) => ({
  id, name, relationshipOwner: true, min: 0, max: 1, to, accessControl: { rules: [] }, ...extra,
});

/**
 * The example with to-dos readable by every signed-in user (changed only by their owner), and
 * projects whose members (a many-to-many set with User.projects) may read and change them.
 */
function sharedDefinition() {
  const scode = todoScodeWithoutEvents() as unknown as { models: Array<{ id: string; name: string; fields: unknown[]; accessControl: unknown }> };
  const todo = scode.models.find((m) => m.id === 'urn:svc:model:todo')!;
  todo.accessControl = {
    rules: [
      { access: 'allow', criteria: "operation == 'read' && auth != null" },
      { access: 'allow', criteria: 'auth != null && record.user == auth.id' },
    ],
    defaultAccess: 'deny',
  };
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

describe.each(await availableDrivers())('relationship writes from the other side on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let shared: ServedApi;

  const ownerOf = async (server: ServedApi, todoId: string) => ((await server.get(`/toDos/${todoId}`, 'admin')).body.user as Rec).id;
  const todoOf = async (server: ServedApi, user: Rec, title: string) => {
    const created = await server.post('/toDos', { title, user: user.id }, 'admin');
    expect(created.status).toBe(201);
    return created.body;
  };

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Relations');
    const app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    const other = await createTodoApp(tenant, sharedDefinition());
    await publish(tenant, other.id);
    shared = new ServedApi(t, tenant, other.id, other.serverVersion);
  });
  afterAll(() => t?.close());

  it('refuses PATCH /users/{me} {todos: [someone else’s to-do]} as a missing record, and changes nothing', async () => {
    const ann = await api.signup('Ann', 'ann@example.test');
    const bob = await api.signup('Bob', 'bob@example.test');
    const annTodo = await todoOf(api, ann.user, 'Ann’s');
    const bobTodo = await todoOf(api, bob.user, 'Bob’s');

    const alone = await api.patch<ProblemBody>(`/users/${bob.user.id}`, { todos: [annTodo.id] }, bob.token);
    expect(alone.status).toBe(422);
    expect(alone.body.errors).toEqual([{ path: '/todos/0', message: 'refers to a record that does not exist' }]);
    const mixed = await api.patch<ProblemBody>(`/users/${bob.user.id}`, { todos: [bobTodo.id, annTodo.id] }, bob.token);
    expect(mixed.status).toBe(422);
    expect(mixed.body.errors.map((e) => e.path)).toEqual(['/todos/1']);
    // The same answer as for an id that does not exist at all.
    const missing = await api.patch<ProblemBody>(`/users/${bob.user.id}`, { todos: [bobTodo.id, '00000000-0000-4000-8000-000000000001'] }, bob.token);
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual(mixed.body.errors);

    expect(await ownerOf(api, annTodo.id)).toBe(ann.user.id);
    expect(await ownerOf(api, bobTodo.id)).toBe(bob.user.id);
    expect((await api.get(`/toDos/${annTodo.id}`, bob.token)).status).toBe(404);
    expect((await api.get(`/toDos/${annTodo.id}`, ann.token)).status).toBe(200);
  });

  it('refuses an anonymous sign-up that lists to-dos, and creates no account', async () => {
    const ann = await api.signup('Ann Two', 'ann2@example.test');
    const annTodo = await todoOf(api, ann.user, 'keep me');
    const reply = await api.post<ProblemBody>('/auth/signup', { name: 'Eve', email: 'eve@example.test', password: 'correct horse', todos: [annTodo.id] });
    expect(reply.status).toBe(422);
    expect(reply.body.errors).toEqual([{ path: '/todos', message: expect.stringContaining('sign-up') }]);
    expect(await ownerOf(api, annTodo.id)).toBe(ann.user.id);
    expect((await api.post('/auth/login', { email: 'eve@example.test', password: 'correct horse' })).status).toBe(401);
    // Without the relationship the same sign-up works.
    expect((await api.post('/auth/signup', { name: 'Eve', email: 'eve@example.test', password: 'correct horse' })).status).toBe(201);
  });

  it('lets the owner keep their set, refuses detaching a to-do from its required user, and lets the administrator move one', async () => {
    const cid = await api.signup('Cid', 'cid@example.test');
    const dee = await api.signup('Dee', 'dee@example.test');
    const cidTodo = await todoOf(api, cid.user, 'Cid’s');
    const deeTodo = await todoOf(api, dee.user, 'Dee’s');

    const same = await api.patch(`/users/${cid.user.id}`, { todos: [cidTodo.id] }, cid.token);
    expect(same.status).toBe(200);
    expect((same.body.todos as Rec[]).map((todo) => todo.id)).toEqual([cidTodo.id]);
    const detach = await api.patch<ProblemBody>(`/users/${cid.user.id}`, { todos: [] }, cid.token);
    expect(detach.status).toBe(422);
    expect(detach.body.errors).toEqual([{ path: '/todos', message: 'would leave a ToDo without its required user' }]);
    expect(await ownerOf(api, cidTodo.id)).toBe(cid.user.id);

    const moved = await api.patch(`/users/${cid.user.id}`, { todos: [cidTodo.id, deeTodo.id] }, 'admin');
    expect(moved.status).toBe(200);
    expect(await ownerOf(api, deeTodo.id)).toBe(cid.user.id);
    // The moved to-do has its own update event, with the user it had before.
    const events = await sql<{ payload: Rec | string; previous: Rec | string }>`
      select payload, previous from appbuilder.events where name = 'ToDo.updated' and payload->>'id' = ${deeTodo.id}`.execute(t.database.db.kysely);
    expect(events.rows).toHaveLength(1);
    const json = (value: Rec | string) => (typeof value === 'string' ? (JSON.parse(value) as Rec) : value);
    expect(json(events.rows[0].payload).user).toBe(cid.user.id);
    expect(json(events.rows[0].previous).user).toBe(dee.user.id);
  });

  it('answers 403 naming the item for a to-do the caller may read but not change, and for a direct update of it', async () => {
    const ann = await shared.signup('Ann', 'ann@example.test');
    const bob = await shared.signup('Bob', 'bob@example.test');
    const annTodo = await todoOf(shared, ann.user, 'readable by all');
    expect((await shared.get(`/toDos/${annTodo.id}`, bob.token)).status).toBe(200);

    const takeover = await shared.patch<ProblemBody>(`/users/${bob.user.id}`, { todos: [annTodo.id] }, bob.token);
    expect(takeover.status).toBe(403);
    expect(takeover.body.errors).toEqual([{ path: '/todos/0', message: 'is a ToDo you may not change' }]);
    expect(await ownerOf(shared, annTodo.id)).toBe(ann.user.id);

    const direct = await shared.patch(`/toDos/${annTodo.id}`, { user: bob.user.id }, bob.token);
    expect(direct.status).toBe(403);
    expect((await shared.delete(`/toDos/${annTodo.id}`, bob.token)).status).toBe(403);
    expect((await shared.delete(`/toDos/${annTodo.id}`)).status).toBe(404);
    expect(await ownerOf(shared, annTodo.id)).toBe(ann.user.id);
  });

  it('applies the target rule to a many-to-many set: no joining a project through User.projects', async () => {
    const ann = await shared.signup('Ann P', 'annp@example.test');
    const bob = await shared.signup('Bob P', 'bobp@example.test');
    const project = await shared.post('/projects', { name: 'Secret', members: [ann.user.id] }, 'admin');
    expect(project.status).toBe(201);
    expect((await shared.get(`/projects/${project.body.id}`, ann.token)).status).toBe(200);
    expect((await shared.get(`/projects/${project.body.id}`, bob.token)).status).toBe(404);

    const join = await shared.patch<ProblemBody>(`/users/${bob.user.id}`, { projects: [project.body.id] }, bob.token);
    expect(join.status).toBe(422);
    expect(join.body.errors).toEqual([{ path: '/projects/0', message: 'refers to a record that does not exist' }]);
    expect((await shared.get(`/projects/${project.body.id}`, bob.token)).status).toBe(404);
    const members = (await shared.get(`/projects/${project.body.id}`, 'admin')).body.members as Rec[];
    expect(members.map((m) => m.id)).toEqual([ann.user.id]);

    // A member may add the project to their own set (it is theirs to change) and take it out again only while
    // that leaves it in their reach: leaving it would take it out of reach.
    const keep = await shared.patch(`/users/${ann.user.id}`, { projects: [project.body.id] }, ann.token);
    expect(keep.status).toBe(200);
    const leave = await shared.patch<ProblemBody>(`/users/${ann.user.id}`, { projects: [] }, ann.token);
    expect(leave.status).toBe(403);
    expect(leave.body.errors).toEqual([{ path: '/projects', message: 'would take a Project out of your reach' }]);
    // The administrator adds Bob; then Bob sees it.
    expect((await shared.patch(`/users/${bob.user.id}`, { projects: [project.body.id] }, 'admin')).status).toBe(200);
    expect((await shared.get(`/projects/${project.body.id}`, bob.token)).status).toBe(200);
  });
});
