// The access matrix over HTTP (GET …/access) for the to-do example and the team app, stated cell
// by cell, and each cell checked against real requests by that kind of caller: `never` refused,
// `always` let through, `when` let through exactly where its condition holds on the record.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type As, type Page, type Rec } from '../runtime/served-app.ts';
import { teamScode } from './team-app.ts';

type Cell = 'always' | 'never' | { when: string };
interface Matrix {
  models: Array<{ model: string; resource: string; ownerField: string | null; operations: Record<string, { anonymous: Cell; signedIn: Cell; owner?: Cell; admin: Cell }> }>;
  advice: unknown[];
}

const own = (field: string) => ({ anonymous: 'never', signedIn: { when: `record.${field} == auth.id` }, owner: 'always', admin: 'always' });
const TODO_MATRIX = {
  ToDo: { create: own('user'), read: own('user'), update: own('user'), delete: own('user') },
  User: { create: own('id'), read: own('id'), update: own('id'), delete: own('id') },
};
const PROJECT_MATRIX = {
  create: own('owner'),
  read: { anonymous: 'never', signedIn: { when: 'record.owner == auth.id || size(record.members) > 0' }, owner: 'always', admin: 'always' },
  update: own('owner'),
  delete: own('owner'),
};

describe.each(await availableDrivers())('the access matrix against real requests on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Matrix');
  }, 60_000);
  afterAll(() => t?.close());

  const setUp = async (scode: unknown) => {
    const app = await createTodoApp(tenant, scode);
    await publish(tenant, app.id);
    const api = new ServedApi(t, tenant, app.id, app.serverVersion);
    const ann = await api.signup('Ann', 'ann@example.test');
    const bob = await api.signup('Bob', 'bob@example.test');
    const matrix = await tenant.api.get<Matrix>(`/v1/applications/${app.id}/access`);
    expect(matrix.status).toBe(200);
    return { api, ann, bob, matrix: matrix.body, appId: app.id };
  };

  /** Whether `as` may do `op` to the record at `path` (a create posts `body`), by the real answer. */
  const allowed = async (api: ServedApi, op: string, resource: string, id: string, body: Record<string, unknown>, as: As): Promise<boolean> => {
    if (op === 'create') return (await api.post(`/${resource}`, body, as)).status === 201;
    if (op === 'read') return (await api.get(`/${resource}/${id}`, as)).status === 200;
    if (op === 'update') return (await api.patch(`/${resource}/${id}`, {}, as)).status === 200;
    return (await api.delete(`/${resource}/${id}`, as)).status === 204;
  };

  it('the to-do example: stated, and each kind of caller answered so', async () => {
    const { api, ann, bob, matrix } = await setUp(todoScodeWithoutEvents());
    expect(Object.fromEntries(matrix.models.map((m) => [m.model, m.operations]))).toEqual(TODO_MATRIX);
    expect(matrix.advice).toEqual([]);
    for (const op of ['create', 'read', 'update', 'delete']) {
      // A fresh to-do of Ann's for each caller (a delete removes it).
      const fresh = async () => (await api.post<Rec>('/toDos', { title: 'x', user: ann.user.id }, 'admin')).body.id;
      const body = { title: 'y', user: ann.user.id };
      // anonymous: never; a signed-in user on a record that is not theirs: the `when` is false; the owner: always; admin: always.
      expect(await allowed(api, op, 'toDos', await fresh(), body, null), `anonymous ${op}`).toBe(false);
      expect(await allowed(api, op, 'toDos', await fresh(), body, bob.token), `signedIn ${op}`).toBe(false);
      expect(await allowed(api, op, 'toDos', await fresh(), body, ann.token), `owner ${op}`).toBe(true);
      expect(await allowed(api, op, 'toDos', await fresh(), body, 'admin'), `admin ${op}`).toBe(true);
    }
    // A list shows each caller what its read cell says: nothing anonymous, only their own signed in.
    expect((await api.get<Page>('/toDos', null)).body.total).toBe(0);
    const bobs = (await api.get<Page>('/toDos?limit=1000', bob.token)).body;
    expect(bobs.items.every((item) => (item.user as Rec).id === bob.user.id)).toBe(true);
  }, 120_000);

  it('the team app: a relationship rule in `when`, held on some records and not on others', async () => {
    const { api, ann, bob, matrix } = await setUp(teamScode());
    const project = matrix.models.find((m) => m.model === 'Project')!;
    expect(project.ownerField).toBe('owner');
    expect(project.operations).toEqual(PROJECT_MATRIX);
    const make = async (members: string[]) => (await api.post<Rec>('/projects', { name: 'p', owner: ann.user.id, members }, 'admin')).body.id;
    const body = { name: 'q', owner: ann.user.id };
    // signedIn read: `record.owner == auth.id || size(record.members) > 0` — Bob reads Ann's project with members, not one without.
    expect(await allowed(api, 'read', 'projects', await make([ann.user.id]), body, bob.token)).toBe(true);
    expect(await allowed(api, 'read', 'projects', await make([]), body, bob.token)).toBe(false);
    for (const op of ['create', 'update', 'delete']) {
      expect(await allowed(api, op, 'projects', await make([bob.user.id]), body, null), `anonymous ${op}`).toBe(false);
      expect(await allowed(api, op, 'projects', await make([bob.user.id]), body, bob.token), `signedIn ${op}`).toBe(false);
      expect(await allowed(api, op, 'projects', await make([]), body, ann.token), `owner ${op}`).toBe(true);
    }
    expect(await allowed(api, 'read', 'projects', await make([]), body, null)).toBe(false);
    expect(await allowed(api, 'read', 'projects', await make([]), body, ann.token)).toBe(true);
  }, 120_000);

  it('answers 404 for another version or application', async () => {
    const { appId } = await setUp(todoScodeWithoutEvents());
    expect((await tenant.api.get(`/v1/applications/${appId}/access?version=9.9.9`)).status).toBe(404);
    expect((await tenant.api.get('/v1/applications/00000000-0000-4000-8000-000000000000/access')).status).toBe(404);
  }, 60_000);
});
