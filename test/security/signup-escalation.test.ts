// Issue 18 item 1: nobody makes themselves an administrator. `User.role` may be written only by an
// administrator (`auth.role == 'admin'`). Every attack is the request an outsider would send, and
// the answer expected; the stored user is then read with the management credential.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type Page, type ProblemBody, type Rec } from '../runtime/served-app.ts';

type Scode = ReturnType<typeof todoScodeWithoutEvents>;
type ModelDef = { id: string; fields: Array<Record<string, unknown>>; accessControl: unknown };

const ADMINS_ONLY = "auth != null && auth.role == 'admin'";

/**
 * The to-do example where users read their own record and administrators every one; `role`
 * (default `member`) is read by whoever reads the user and written by administrators only; `email`
 * is one's own (`record.id == auth.id`), which a new user must still be able to set at sign-up.
 */
function definition(userCreateRule?: string): Scode {
  const scode = todoScodeWithoutEvents();
  const user = (scode.models as unknown as ModelDef[]).find((m) => m.id === 'urn:svc:model:user')!;
  user.accessControl = {
    rules: [
      ...(userCreateRule ? [{ access: 'deny', criteria: `operation == 'create' && !(${userCreateRule})` }] : []),
      { access: 'allow', criteria: "auth != null && (record.id == auth.id || auth.role == 'admin')" },
    ],
    defaultAccess: 'deny',
  };
  user.fields.find((f) => f.name === 'email')!.accessControl = { rules: [{ access: 'allow', criteria: 'auth != null && record.id == auth.id' }], defaultAccess: 'deny' };
  user.fields.push({
    id: 'urn:svc:edge:user-role',
    name: 'role',
    relationshipOwner: true,
    min: 0,
    max: 1,
    to: 'p_TEXT',
    defaultValue: 'member',
    accessControl: { rules: [{ access: 'allow', criteria: `operation == 'read' || (${ADMINS_ONLY})` }], defaultAccess: 'deny' },
  });
  // `POST /me` changes the caller's own record through an action, with the values they send.
  const withActions = scode as Scode & { actions: unknown[]; triggers: unknown[] };
  withActions.actions.push({
    id: 'urn:svc:action:update-me',
    startEffectId: 'save',
    effects: [{ actionEffectId: 'save', effect: 'data.update', params: { model: 'User' }, bindParams: { id: 'auth.id', values: 'state.values' } }],
    bindReturnValue: 'results.save',
  });
  withActions.triggers.push({
    trigger: { id: 'urn:svc:trigger:update-me', type: 'http', method: 'POST', path: '/me' },
    actionId: 'urn:svc:action:update-me',
    initialState: { values: 'request.body' },
    validation: ['auth != null'],
    isPublic: false,
  });
  return scode;
}

const PASSWORD = 'correct horse battery';

describe.each(await availableDrivers())('no privilege escalation through sign-up or one\'s own record on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  /** An app whose User create rule admits administrators only: no public sign-up. */
  let closed: ServedApi;

  /** The user with `email`, as the management credential sees it (undefined when there is none). */
  async function stored(on: ServedApi, email: string): Promise<Rec | undefined> {
    const page = await on.get<Page>(`/users?filter=${encodeURIComponent(`record.email == '${email}'`)}`, 'admin');
    expect(page.status).toBe(200);
    return page.body.items[0];
  }

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Sign-up escalation');
    const app = await createTodoApp(tenant, definition());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    const other = await createTodoApp(tenant, definition(ADMINS_ONLY));
    await publish(tenant, other.id);
    closed = new ServedApi(t, tenant, other.id, other.serverVersion);
  });
  afterAll(() => t?.close());

  it('POST /auth/signup {role: "admin"} → 403 naming /role, and no account exists', async () => {
    const reply = await api.post<ProblemBody>('/auth/signup', { name: 'Mallory', email: 'mallory@example.test', password: PASSWORD, role: 'admin' });
    expect(reply.status).toBe(403);
    expect(reply.contentType).toContain('application/problem+json');
    expect(reply.body.errors.map((e) => e.path)).toEqual(['/role']);
    expect(await stored(api, 'mallory@example.test')).toBeUndefined();
    expect((await api.post('/auth/login', { email: 'mallory@example.test', password: PASSWORD })).status).toBe(401);
  });

  it('POST /auth/signup without a role → 201, a member who may set their own email', async () => {
    const reply = await api.post<{ token: string; user: Rec }>('/auth/signup', { name: 'Ann', email: 'ann@example.test', password: PASSWORD });
    expect(reply.status).toBe(201);
    expect(reply.body.user).toMatchObject({ name: 'Ann', email: 'ann@example.test', role: 'member' });
    expect(await stored(api, 'ann@example.test')).toMatchObject({ role: 'member' });
  });

  it('PATCH /users/{me} {role: "admin"} → 403 naming /role; the stored role stays member', async () => {
    const mallory = await api.signup('Mallory', 'mallory2@example.test', PASSWORD);
    const raise = await api.patch<ProblemBody>(`/users/${mallory.user.id}`, { role: 'admin' }, mallory.token);
    expect(raise.status).toBe(403);
    expect(raise.body.errors.map((e) => e.path)).toEqual(['/role']);
    // Sent with a field they may change, the whole update is refused.
    const mixed = await api.patch<ProblemBody>(`/users/${mallory.user.id}`, { name: 'Boss', role: 'admin' }, mallory.token);
    expect(mixed.status).toBe(403);
    expect(await stored(api, 'mallory2@example.test')).toMatchObject({ name: 'Mallory', role: 'member' });
    // Their token still names a member: an administrator's rule does not let them read others.
    const ann = await stored(api, 'ann@example.test');
    expect((await api.get(`/users/${ann!.id}`, mallory.token)).status).toBe(404);
    expect((await api.get('/auth/me', mallory.token)).body).toMatchObject({ role: 'member' });
  });

  it('POST /me (an action updating the caller\'s own record) {role: "admin"} → 403; the stored role stays member', async () => {
    const mallory = await api.signup('Mallory', 'mallory3@example.test', PASSWORD);
    const renamed = await api.post(`/me`, { name: 'Mal' }, mallory.token);
    expect(renamed.status).toBe(200);
    const raise = await api.post<ProblemBody>(`/me`, { role: 'admin' }, mallory.token);
    expect(raise.status).toBe(403);
    expect(raise.contentType).toContain('application/problem+json');
    expect(await stored(api, 'mallory3@example.test')).toMatchObject({ name: 'Mal', role: 'member' });
  });

  it('an administrator made by the management credential sets roles; members still cannot', async () => {
    const boss = await api.signup('Boss', 'boss@example.test', PASSWORD);
    const bob = await api.signup('Bob', 'bob@example.test', PASSWORD);
    const promoted = await api.patch(`/users/${boss.user.id}`, { role: 'admin' }, 'admin');
    expect(promoted.status).toBe(200);
    expect(promoted.body.role).toBe('admin');
    // The same token, now an administrator's: the rules read the stored user.
    const lead = await api.patch(`/users/${bob.user.id}`, { role: 'lead' }, boss.token);
    expect(lead.status).toBe(200);
    expect(lead.body.role).toBe('lead');
    expect(await stored(api, 'bob@example.test')).toMatchObject({ role: 'lead' });
    expect((await api.patch(`/users/${boss.user.id}`, { role: 'member' }, bob.token)).status).toBe(404);
    expect(await stored(api, 'boss@example.test')).toMatchObject({ role: 'admin' });
  });

  it('checks the User create rule at sign-up as an anonymous caller or the new user, never as what they sent', async () => {
    const reply = await closed.post<ProblemBody>('/auth/signup', { name: 'Eve', email: 'eve@example.test', password: PASSWORD, role: 'admin' });
    expect(reply.status).toBe(403);
    const plain = await closed.post<ProblemBody>('/auth/signup', { name: 'Eve', email: 'eve@example.test', password: PASSWORD });
    expect(plain.status).toBe(403);
    expect(plain.contentType).toContain('application/problem+json');
    expect(await stored(closed, 'eve@example.test')).toBeUndefined();
  });
});
