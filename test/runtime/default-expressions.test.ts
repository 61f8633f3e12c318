// `defaultValue` expressions (DESIGN §4): checked at save like every expression (409 naming the
// pointer), evaluated on create with `auth` and `now` (the to-do's `user` defaults to the caller),
// `{"literal": …}` escaping an object, and described in the per-version OpenAPI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type ProblemBody, type Rec } from './served-app.ts';

interface ScodeField {
  id: string;
  name: string;
  defaultValue?: unknown;
  [member: string]: unknown;
}
interface Scode {
  models: Array<{ id: string; fields: ScodeField[] }>;
}

const todoModel = (scode: Scode) => scode.models.find((m) => m.id === 'urn:svc:model:todo')!;
const field = (id: string, name: string, to: string, extra: Record<string, unknown> = {}) => ({
  id, name, relationshipOwner: true, min: 0, max: 1, to, accessControl: { rules: [] }, ...extra,
});

/** The example plus a date-time defaulting to `now` and an address whose literal default looks like an expression. */
function definition(): Scode {
  const scode = todoScodeWithoutEvents() as unknown as Scode;
  todoModel(scode).fields.push(
    field('urn:svc:edge:todo-noted', 'notedAt', 'p_DATE_TIME', { defaultValue: { expression: 'now' } }),
    field('urn:svc:edge:todo-place', 'place', 'p_ADDRESS', { defaultValue: { literal: { expression: 'not CEL, a street' } } }),
  );
  return scode;
}

/** The pointer of a ToDo field's default expression in `scode`. */
function pointerOf(scode: Scode, name: string): string {
  const m = scode.models.findIndex((model) => model.id === 'urn:svc:model:todo');
  const f = scode.models[m].fields.findIndex((x) => x.name === name);
  return `/models/${m}/fields/${f}/defaultValue/expression`;
}

describe.each(await availableDrivers())('defaultValue expressions on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Defaults');
    const app = await createTodoApp(tenant, definition());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
  });
  afterAll(() => t?.close());

  it.each([
    ['a result of the wrong type', 'user', 'now', /returns google\.protobuf\.Timestamp.*needs the id/],
    ['a variable the scope lacks', 'user', 'record.title', /record/],
    ['a syntax error', 'notedAt', 'now +', /Invalid default expression/],
    ['a text default that is a number', 'title', '1 + 2', /returns int.*needs string/],
  ])('refuses at save %s: 409 naming the pointer, nothing stored', async (_name, fieldName, source, message) => {
    const scode = definition();
    const target = todoModel(scode).fields.find((f) => f.name === fieldName)!;
    target.defaultValue = { expression: source };
    const reply = await tenant.api.post<ProblemBody>('/v1/applications', { projectId: tenant.projectId, name: 'Bad default', scode });
    expect(reply.status).toBe(409);
    expect(reply.headers.get('content-type')).toContain('application/problem+json');
    const problem = reply.body.errors.find((e) => e.path === pointerOf(scode, fieldName));
    expect(problem, JSON.stringify(reply.body.errors)).toBeDefined();
    expect(problem!.message).toMatch(message);
  });

  it('lets a signed-in user create a to-do without `user`: 201, owned by them and readable by them only', async () => {
    const ann = await api.signup('Ann', 'ann@example.test');
    const bob = await api.signup('Bob', 'bob@example.test');
    const before = Date.now();
    const created = await api.post('/toDos', { title: 'Mine by default' }, ann.token);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.user).toMatchObject({ id: ann.user.id });
    expect(Date.parse(created.body.notedAt as string)).toBeGreaterThanOrEqual(before - 1000);
    expect(created.body.place).toEqual({ expression: 'not CEL, a street' });
    expect((await api.get(`/toDos/${created.body.id}`, ann.token)).status).toBe(200);
    expect((await api.get(`/toDos/${created.body.id}`, bob.token)).status).toBe(404);
    // A value sent wins over the default (the rule still decides whether it may be someone else).
    const sent = await api.post('/toDos', { title: 'For Bob', user: bob.user.id }, ann.token);
    expect(sent.status).toBe(403);
  });

  it('answers the usual "is required" when the expression has no value (anonymous caller, administrator)', async () => {
    for (const as of [null, 'admin'] as const) {
      const reply = await api.post<ProblemBody>('/toDos', { title: 'Whose?' }, as);
      expect(reply.status, String(as)).toBe(422);
      expect(reply.body.errors).toEqual([{ path: '/user', message: 'is required' }]);
    }
  });

  it('documents the default in the version OpenAPI: not required on create, "defaults to the caller"', async () => {
    const doc = await api.get<{ components: { schemas: Record<string, { required?: string[]; properties: Record<string, Rec & { description?: string }> }> } }>(
      '/openapi.json',
    );
    expect(doc.status).toBe(200);
    const create = doc.body.components.schemas.ToDoCreate;
    expect(create.required).toEqual(['title']);
    expect(create.properties.user.description).toContain('defaults to the caller');
    expect(create.properties.notedAt.description).toContain('defaults to now');
    expect(create.properties.place.default).toEqual({ expression: 'not CEL, a street' });
  });
});
