// Issue 18 item 4: nothing a caller may not read shows through relationships or filters. Every
// probe is the request a signed-in end user would send to learn about records (or fields of their
// own record) the rules hide from them, and the answer expected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type Page, type ProblemBody, type Rec } from '../runtime/served-app.ts';

type ModelDef = { id: string; fields: Array<Record<string, unknown>>; accessControl: unknown };

const field = (id: string, name: string, to: string, extra: Record<string, unknown> = {}) => ({
  id, name, relationshipOwner: true, min: 0, max: 1, to, accessControl: { rules: [] }, ...extra,
});

/**
 * Signed-in users read every user; a to-do is read by its owner, and by everyone when shared,
 * never when locked. `User.secret` is never readable (not even one's own).
 */
function definition() {
  const scode = todoScodeWithoutEvents();
  const models = scode.models as unknown as ModelDef[];
  const todo = models.find((m) => m.id === 'urn:svc:model:todo')!;
  const user = models.find((m) => m.id === 'urn:svc:model:user')!;
  todo.accessControl = {
    rules: [
      { access: 'deny', criteria: 'record.locked == true' },
      { access: 'allow', criteria: 'auth != null && (record.user == auth.id || record.shared == true)' },
    ],
    defaultAccess: 'deny',
  };
  todo.fields.push(field('urn:svc:edge:todo-shared', 'shared', 'p_BOOLEAN', { defaultValue: false }));
  todo.fields.push(field('urn:svc:edge:todo-locked', 'locked', 'p_BOOLEAN', { defaultValue: false }));
  user.accessControl = { rules: [{ access: 'allow', criteria: "auth != null && (operation == 'read' || record.id == auth.id)" }], defaultAccess: 'deny' };
  user.fields.find((f) => f.name === 'email')!.accessControl = { rules: [{ access: 'allow', criteria: 'auth != null && record.id == auth.id' }], defaultAccess: 'deny' };
  user.fields.push(field('urn:svc:edge:user-secret', 'secret', 'p_TEXT', { accessControl: { rules: [{ access: 'deny', criteria: 'true' }] } }));
  return scode;
}

const q = (filter: string) => `filter=${encodeURIComponent(filter)}`;

describe.each(await availableDrivers())('no leaks through relationships and filters on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let ann: { token: string; user: Rec };
  let bob: { token: string; user: Rec };
  /** Ann's to-dos: shared (Bob reads it), private (Bob does not), locked (nobody does). */
  let shared: Rec;
  let hidden: Rec;
  let locked: Rec;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Relation leaks');
    const app = await createTodoApp(tenant, definition());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    ann = await api.signup('Ann', 'ann@example.test');
    bob = await api.signup('Bob', 'bob@example.test');
    const make = async (title: string, extra: Record<string, unknown>) => {
      const reply = await api.post('/toDos', { title, user: ann.user.id, ...extra }, 'admin');
      expect(reply.status).toBe(201);
      return reply.body;
    };
    shared = await make('shared', { shared: true });
    hidden = await make('private', {});
    locked = await make('locked', { locked: true });
    await api.patch(`/users/${ann.user.id}`, { secret: 's3cret' }, 'admin');
  });
  afterAll(() => t?.close());

  const annIn = (page: Page) => page.items.some((item) => item.id === ann.user.id);

  it('GET /toDos as Bob: the embedded owner lists only the to-do ids Bob may read', async () => {
    const list = await api.get<Page>('/toDos?limit=100', bob.token);
    expect(list.status).toBe(200);
    expect(list.body.items.map((item) => item.id)).toEqual([shared.id]);
    expect((list.body.items[0].user as Rec).todos).toEqual([shared.id]);
  });

  it('GET /users/{ann} as Bob: the expanded to-dos are only those Bob may read, with no bare ids', async () => {
    const reply = await api.get(`/users/${ann.user.id}`, bob.token);
    expect(reply.status).toBe(200);
    expect((reply.body.todos as Rec[]).map((todo) => todo.id)).toEqual([shared.id]);
    expect(JSON.stringify(reply.body)).not.toContain(hidden.id);
    // The administrator sees all three.
    expect(((await api.get(`/users/${ann.user.id}`, 'admin')).body.todos as Rec[]).length).toBe(3);
  });

  it('GET /auth/me as Ann: her to-do ids leave out the one locked away from her', async () => {
    const me = await api.get('/auth/me', ann.token);
    expect(me.status).toBe(200);
    expect([...(me.body.todos as string[])].sort()).toEqual([shared.id, hidden.id].sort());
    expect(JSON.stringify(me.body)).not.toContain(locked.id);
  });

  it('GET /users?filter=size(record.todos) … as Bob counts only the to-dos Bob may read', async () => {
    const three = await api.get<Page>(`/users?${q('size(record.todos) == 3')}`, bob.token);
    expect(three.status).toBe(200);
    expect(annIn(three.body)).toBe(false);
    const one = await api.get<Page>(`/users?${q('size(record.todos) == 1')}`, bob.token);
    expect(annIn(one.body)).toBe(true);
    expect(annIn((await api.get<Page>(`/users?${q('size(record.todos) == 3')}`, 'admin')).body)).toBe(true);
    // Ann herself counts her own two, not the locked one.
    expect(annIn((await api.get<Page>(`/users?${q('size(record.todos) == 2')}`, ann.token)).body)).toBe(true);
  });

  it('GET /users?filter=\'<hidden id>\' in record.todos as Bob finds nobody', async () => {
    const probe = await api.get<Page>(`/users?${q(`'${hidden.id}' in record.todos`)}`, bob.token);
    expect(probe.status).toBe(200);
    expect(probe.body.total).toBe(0);
    const negated = await api.get<Page>(`/users?${q(`!('${hidden.id}' in record.todos)`)}`, bob.token);
    expect(annIn(negated.body)).toBe(true);
    expect(annIn((await api.get<Page>(`/users?${q(`'${shared.id}' in record.todos`)}`, bob.token)).body)).toBe(true);
    expect(annIn((await api.get<Page>(`/users?${q(`'${hidden.id}' in record.todos`)}`, 'admin')).body)).toBe(true);
  });

  it('GET /toDos?filter=auth.secret == … as Ann → 400 naming auth.secret; her readable own fields still filter', async () => {
    const probe = await api.get<ProblemBody>(`/toDos?${q("auth.secret == 's3cret'")}`, ann.token);
    expect(probe.status).toBe(400);
    expect(probe.contentType).toContain('application/problem+json');
    expect(probe.body.errors).toEqual([{ path: '/filter', message: "the field 'auth.secret' cannot be filtered on" }]);
    expect(JSON.stringify(probe.body)).not.toContain('s3cret');
    // The same answer whatever the guess, so nothing is learnt from it.
    expect((await api.get<ProblemBody>(`/toDos?${q("auth.secret == 'wrong'")}`, ann.token)).body).toEqual(probe.body);
    const own = await api.get<Page>(`/toDos?${q("auth.email == 'ann@example.test' && record.title == 'private'")}`, ann.token);
    expect(own.status).toBe(200);
    expect(own.body.items.map((item) => item.id)).toEqual([hidden.id]);
  });
});
