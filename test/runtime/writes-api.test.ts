// Writes through the generated API over real HTTP: values checked against their fields (422 naming
// each), defaults applied, computed fields returned and read-only; end-user sign-up, log-in and me.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type Page, type ProblemBody, type Rec } from './served-app.ts';

const field = (id: string, name: string, to: string, extra: Record<string, unknown> = {}) => ({
  id, name, relationshipOwner: true, min: 0, max: 1, to, accessControl: { rules: [] }, ...extra,
});

/** The example plus a number, a link, and a computed label (translated to SQL). */
function definition() {
  const scode = todoScodeWithoutEvents() as unknown as { models: Array<{ id: string; fields: unknown[] }> };
  scode.models
    .find((m) => m.id === 'urn:svc:model:todo')!
    .fields.push(
      field('urn:svc:edge:todo-estimate', 'estimate', 'p_NUMBER'),
      field('urn:svc:edge:todo-link', 'link', 'p_LINK'),
      field('urn:svc:edge:todo-label', 'label', 'p_TEXT', { computed: "record.title + ' (' + record.status + ')'" }),
    );
  return scode;
}

const errorsOf = (body: ProblemBody) => body.errors.map((e) => e.path).sort();

describe.each(await availableDrivers())('writes over HTTP on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let ann: { token: string; user: Rec };

  const count = async () => (await api.get<Page>('/toDos?limit=1', 'admin')).body.total;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Writes');
    const app = await createTodoApp(tenant, definition());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
  });
  afterAll(() => t?.close());

  it('signs up (201 with a token and the user), logs in, and answers /auth/me', async () => {
    const signup = await api.post<{ token: string; user: Rec }>('/auth/signup', { name: 'Ann', email: ' Ann@Example.TEST ', password: 'correct horse' });
    expect(signup.status).toBe(201);
    expect(Object.keys(signup.body).sort()).toEqual(['refreshToken', 'token', 'user']);
    expect(typeof (signup.body as { refreshToken?: unknown }).refreshToken).toBe('string');
    expect(signup.body.token.split('.')).toHaveLength(3);
    expect(signup.body.user).toEqual({ id: expect.any(String), name: 'Ann', email: 'ann@example.test', todos: [] });
    ann = signup.body;

    const login = await api.post<{ token: string; user: Rec }>('/auth/login', { email: 'ann@example.test', password: 'correct horse' });
    expect(login.status).toBe(200);
    expect(login.body.user).toEqual(ann.user);
    const me = await api.get('/auth/me', login.body.token);
    expect(me.status).toBe(200);
    expect(me.body).toEqual(ann.user);
    expect((await api.get('/auth/me', ann.token)).body.id).toBe(ann.user.id);
  });

  it('refuses a wrong password or an unknown email with the same 401, and bad sign-ups with 422 or 409', async () => {
    const wrong = await api.post<ProblemBody>('/auth/login', { email: 'ann@example.test', password: 'wrong horse' });
    expect(wrong.status).toBe(401);
    expect(wrong.contentType).toContain('application/problem+json');
    const unknown = await api.post<ProblemBody>('/auth/login', { email: 'nobody@example.test', password: 'correct horse' });
    expect(unknown.status).toBe(401);
    expect(unknown.body.detail).toBe(wrong.body.detail);
    expect((await api.get('/auth/me')).status).toBe(401);
    expect((await api.get('/auth/me', 'not.a.token')).status).toBe(401);
    const short = await api.post<ProblemBody>('/auth/signup', { name: 'Bo', email: 'bo@example.test', password: 'short' });
    expect(short.status).toBe(422);
    expect(errorsOf(short.body)).toEqual(['/password']);
    const taken = await api.post<ProblemBody>('/auth/signup', { name: 'Ann 2', email: 'ANN@example.test', password: 'correct horse' });
    expect(taken.status).toBe(409);
    expect(errorsOf(taken.body)).toEqual(['/email']);
    const missing = await api.post<ProblemBody>('/auth/signup', { email: 'noname@example.test', password: 'correct horse' });
    expect(missing.status).toBe(422);
    expect(errorsOf(missing.body)).toEqual(['/name']);
  });

  it('applies the default value and returns computed fields on create, read and list', async () => {
    const created = await api.post('/toDos', { title: 'Pay rent', user: ann.user.id, estimate: 1.5, link: 'https://example.test/rent' }, ann.token);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ title: 'Pay rent', status: 'open', label: 'Pay rent (open)', estimate: 1.5, link: 'https://example.test/rent' });
    const id = created.body.id;
    expect((await api.get(`/toDos/${id}`, ann.token)).body).toMatchObject({ status: 'open', label: 'Pay rent (open)' });
    const updated = await api.patch(`/toDos/${id}`, { status: 'done' }, ann.token);
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ status: 'done', label: 'Pay rent (done)', title: 'Pay rent' });
    const list = await api.get<Page>('/toDos', ann.token);
    expect(list.body.items.find((item) => item.id === id)).toMatchObject({ label: 'Pay rent (done)' });
    // A computed field can be sorted and filtered on.
    const filtered = await api.get<Page>(`/toDos?filter=${encodeURIComponent("record.label == 'Pay rent (done)'")}`, ann.token);
    expect(filtered.body.total).toBe(1);
  });

  it.each([
    ['a wrong type', { title: 42 }, ['/title'], 'must be a string'],
    ['a wrong number', { title: 'x', estimate: '5' }, ['/estimate'], 'must be a finite number'],
    ['a bad date-time', { title: 'x', deadline: 'tomorrow' }, ['/deadline'], 'must be an ISO 8601 date-time'],
    ['a bad link', { title: 'x', link: 'ftp://example.test' }, ['/link'], 'must be an http(s) URL'],
    ['an enum violation', { title: 'x', status: 'later' }, ['/status'], 'must be one of "open", "done"'],
    ['a missing required field', { description: 'no title' }, ['/title'], 'is required'],
    ['a computed field', { title: 'x', label: 'mine' }, ['/label'], 'is computed and read-only'],
    ['an unknown field', { title: 'x', colour: 'red' }, ['/colour'], "ToDo has no field 'colour'"],
    ['an id', { title: 'x', id: '00000000-0000-4000-8000-000000000000' }, ['/id'], 'is assigned by the server'],
  ])('refuses a create with %s: 422 naming the field, nothing stored', async (_name, values, paths, message) => {
    const before = await count();
    const reply = await api.post<ProblemBody>('/toDos', { user: ann.user.id, ...values }, ann.token);
    expect(reply.status).toBe(422);
    expect(reply.contentType).toContain('application/problem+json');
    expect(errorsOf(reply.body)).toEqual(paths);
    expect(reply.body.errors[0].message).toBe(message);
    expect(await count()).toBe(before);
  });

  it('reports every problem of a write at once, and refuses bad updates without changing the record', async () => {
    // `user` defaults to the caller (auth.id), so only the three bad values are reported.
    const many = await api.post<ProblemBody>('/toDos', { title: 7, status: 'later', deadline: 3 }, ann.token);
    expect(many.status).toBe(422);
    expect(errorsOf(many.body)).toEqual(['/deadline', '/status', '/title']);

    const created = await api.post('/toDos', { title: 'Keep', user: ann.user.id }, ann.token);
    const id = created.body.id;
    for (const [values, path] of [
      [{ title: null }, '/title'],
      [{ status: 'later' }, '/status'],
      [{ label: 'x' }, '/label'],
      [{ estimate: true }, '/estimate'],
      [{ user: 'not-a-uuid' }, '/user'],
    ] as const) {
      const reply = await api.patch<ProblemBody>(`/toDos/${id}`, values, ann.token);
      expect(reply.status, JSON.stringify(values)).toBe(422);
      expect(errorsOf(reply.body)).toEqual([path]);
    }
    expect((await api.get(`/toDos/${id}`, ann.token)).body).toMatchObject({ title: 'Keep', status: 'open', estimate: null });
    // A related id that does not exist.
    const ghost = await api.post<ProblemBody>('/toDos', { title: 'x', user: '00000000-0000-4000-8000-000000000000' }, 'admin');
    expect(ghost.status).toBe(422);
    expect(errorsOf(ghost.body)).toEqual(['/user']);
  });
});
