// Who sees and changes what under the to-do example's rules, over real HTTP: every operation for
// the owner, another user, an anonymous caller and the administrator (management credentials),
// and a list under a rule whose total and pages prove the rule runs inside SQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type As, type Page, type Rec } from './served-app.ts';

type Actor = 'owner' | 'other' | 'anonymous' | 'admin';
type Operation = 'list' | 'read' | 'create' | 'update' | 'delete';

/** What each actor may do to the owner's records, following the example's rules (record.user / record.id == auth.id). */
const TODO_MATRIX: Record<Operation, Record<Actor, number>> = {
  list: { owner: 200, other: 200, anonymous: 200, admin: 200 },
  read: { owner: 200, other: 404, anonymous: 404, admin: 200 },
  create: { owner: 201, other: 403, anonymous: 403, admin: 201 },
  update: { owner: 200, other: 404, anonymous: 404, admin: 200 },
  delete: { owner: 204, other: 404, anonymous: 404, admin: 204 },
};
/** On User the rule is record.id == auth.id: nobody but the administrator creates a user this way (sign-up does). */
const USER_MATRIX: Record<Operation, Record<Actor, number>> = {
  list: { owner: 200, other: 200, anonymous: 200, admin: 200 },
  read: { owner: 200, other: 404, anonymous: 404, admin: 200 },
  create: { owner: 403, other: 403, anonymous: 403, admin: 201 },
  update: { owner: 200, other: 404, anonymous: 404, admin: 200 },
  delete: { owner: 204, other: 404, anonymous: 404, admin: 204 },
};
/** Whether the actor's list shows the owner's records (and only whose). */
const LIST_SEES: Record<Actor, 'owner' | 'self' | 'nothing' | 'everything'> = {
  owner: 'owner',
  other: 'self',
  anonymous: 'nothing',
  admin: 'everything',
};

const cases = (matrix: Record<Operation, Record<Actor, number>>) =>
  (Object.keys(matrix) as Operation[]).flatMap((operation) =>
    (Object.keys(matrix[operation]) as Actor[]).map((actor) => ({ operation, actor, status: matrix[operation][actor] })),
  );

describe.each(await availableDrivers())('access rules over HTTP on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let ann: { token: string; user: Rec };
  let bob: { token: string; user: Rec };
  let signups = 0;

  const tokenOf = (actor: Actor, owner: { token: string }): As =>
    actor === 'owner' ? owner.token : actor === 'other' ? bob.token : actor === 'anonymous' ? null : 'admin';
  const adminRead = async (path: string) => api.get(path, 'admin');
  const todoOf = async (user: Rec, title: string) => {
    const created = await api.post('/toDos', { title, user: user.id }, 'admin');
    expect(created.status).toBe(201);
    return created.body;
  };
  const allIds = async (resource: string) => (await api.get<Page>(`/${resource}?limit=1000`, 'admin')).body.items.map((r) => r.id).sort();

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Matrix');
    const app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    ann = await api.signup('Ann', 'ann@example.test');
    bob = await api.signup('Bob', 'bob@example.test');
    for (let i = 0; i < 3; i++) await todoOf(ann.user, `Ann ${i}`);
    for (let i = 0; i < 2; i++) await todoOf(bob.user, `Bob ${i}`);
  });
  afterAll(() => t?.close());

  it.each(cases(TODO_MATRIX))('ToDo: $operation by $actor answers $status', async ({ operation, actor, status }) => {
    const as = tokenOf(actor, ann);
    if (operation === 'list') {
      const page = await api.get<Page>('/toDos?limit=1000', as);
      expect(page.status).toBe(status);
      const owners = new Set(page.body.items.map((item) => (item.user as Rec).id));
      const sees = LIST_SEES[actor];
      if (sees === 'owner') expect([...owners]).toEqual([ann.user.id]);
      if (sees === 'self') expect([...owners]).toEqual([bob.user.id]);
      if (sees === 'nothing') expect(page.body).toEqual({ items: [], total: 0, offset: 0 });
      if (sees === 'everything') expect(page.body.items.map((item) => item.id).sort()).toEqual(await allIds('toDos'));
      expect(page.body.total).toBe(page.body.items.length);
      return;
    }
    if (operation === 'create') {
      const before = await allIds('toDos');
      const reply = await api.post('/toDos', { title: `made by ${actor}`, user: ann.user.id }, as);
      expect(reply.status).toBe(status);
      const after = await allIds('toDos');
      expect(after.length).toBe(before.length + (status === 201 ? 1 : 0));
      if (status === 201) expect((await adminRead(`/toDos/${reply.body.id}`)).body).toMatchObject({ title: `made by ${actor}` });
      return;
    }
    const target = await todoOf(ann.user, `target of ${operation} by ${actor}`);
    if (operation === 'read') {
      const reply = await api.get(`/toDos/${target.id}`, as);
      expect(reply.status).toBe(status);
      if (status === 200) expect(reply.body.id).toBe(target.id);
      else expect(reply.body).toMatchObject({ status: 404 });
      expect(JSON.stringify(reply.body).includes(target.title as string)).toBe(status === 200);
      return;
    }
    if (operation === 'update') {
      const reply = await api.patch(`/toDos/${target.id}`, { title: 'changed', status: 'done' }, as);
      expect(reply.status).toBe(status);
      const stored = (await adminRead(`/toDos/${target.id}`)).body;
      expect(stored.title).toBe(status === 200 ? 'changed' : target.title);
      expect(stored.status).toBe(status === 200 ? 'done' : 'open');
      return;
    }
    const reply = await api.delete(`/toDos/${target.id}`, as);
    expect(reply.status).toBe(status);
    expect((await adminRead(`/toDos/${target.id}`)).status).toBe(status === 204 ? 404 : 200);
  });

  it.each(cases(USER_MATRIX))('User: $operation by $actor answers $status', async ({ operation, actor, status }) => {
    // A fresh owner per case: update and delete change it.
    const owner = await api.signup(`Owner ${++signups}`, `owner${signups}@example.test`);
    const as = tokenOf(actor, owner);
    if (operation === 'list') {
      const page = await api.get<Page>('/users?limit=1000', as);
      expect(page.status).toBe(status);
      const ids = page.body.items.map((item) => item.id);
      const sees = LIST_SEES[actor];
      if (sees === 'owner') expect(ids).toEqual([owner.user.id]);
      if (sees === 'self') expect(ids).toEqual([bob.user.id]);
      if (sees === 'nothing') expect(page.body).toEqual({ items: [], total: 0, offset: 0 });
      if (sees === 'everything') expect(ids.sort()).toEqual(await allIds('users'));
      expect(page.body.total).toBe(ids.length);
      return;
    }
    if (operation === 'create') {
      const before = await allIds('users');
      const reply = await api.post('/users', { name: `made by ${actor}`, email: `made-${signups}@example.test` }, as);
      expect(reply.status).toBe(status);
      expect((await allIds('users')).length).toBe(before.length + (status === 201 ? 1 : 0));
      return;
    }
    const path = `/users/${owner.user.id}`;
    if (operation === 'read') {
      const reply = await api.get(path, as);
      expect(reply.status).toBe(status);
      if (status === 200) expect(reply.body).toMatchObject({ id: owner.user.id, name: owner.user.name });
      return;
    }
    if (operation === 'update') {
      const reply = await api.patch(path, { name: 'Renamed' }, as);
      expect(reply.status).toBe(status);
      expect((await adminRead(path)).body.name).toBe(status === 200 ? 'Renamed' : owner.user.name);
      return;
    }
    const reply = await api.delete(path, as);
    expect(reply.status).toBe(status);
    expect((await adminRead(path)).status).toBe(status === 204 ? 404 : 200);
  });

  it('a list under a rule counts and pages only the visible rows, in SQL', async () => {
    const pat = await api.signup('Pat', 'pat@example.test');
    const mine: string[] = [];
    // 45 of Pat's rows interleaved with 45 of others', so a filter after the fetch would show short pages.
    for (let i = 0; i < 45; i++) {
      mine.push((await todoOf(pat.user, `Pat ${String(i).padStart(2, '0')}`)).id);
      await todoOf(i % 2 === 0 ? ann.user : bob.user, `Other ${i}`);
    }
    const everything = (await api.get<Page>('/toDos?limit=1', 'admin')).body.total;
    expect(everything).toBeGreaterThan(90);
    const pages: Page[] = [];
    for (const offset of [0, 20, 40]) {
      const reply = await api.get<Page>(`/toDos?limit=20&offset=${offset}&sort=title`, pat.token);
      expect(reply.status).toBe(200);
      pages.push(reply.body);
    }
    expect(pages.map((page) => page.total)).toEqual([45, 45, 45]);
    expect(pages.map((page) => page.offset)).toEqual([0, 20, 40]);
    expect(pages.map((page) => page.items.length)).toEqual([20, 20, 5]);
    const seen = pages.flatMap((page) => page.items.map((item) => item.id));
    expect(new Set(seen).size).toBe(45);
    expect([...seen].sort()).toEqual([...mine].sort());
    expect(pages.flatMap((page) => page.items.map((item) => item.title))).toEqual(mine.map((_, i) => `Pat ${String(i).padStart(2, '0')}`));
    for (const item of pages.flatMap((page) => page.items)) expect((item.user as Rec).id).toBe(pat.user.id);
    // Past the end: an empty page with the same exact total.
    const past = await api.get<Page>('/toDos?limit=20&offset=60', pat.token);
    expect(past.body).toEqual({ items: [], total: 45, offset: 60 });
    // A filter narrows within the rule, still counted in SQL.
    const filtered = await api.get<Page>(`/toDos?limit=5&filter=${encodeURIComponent("record.title.startsWith('Pat 1')")}`, pat.token);
    expect(filtered.body.total).toBe(10);
    expect(filtered.body.items).toHaveLength(5);
  });
});
