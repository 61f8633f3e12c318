// HTTP triggers over a real server (PGlite, and PostgreSQL when it answers): the to-do example's
// `complete` trigger (owner 200, another user 404, anonymous 401), matchSelectors choosing among
// triggers and beside a generated route, validation 422 naming the expression, flow.return as the
// response, a failed run as a problem with a real rollback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDefinition, Trigger } from '../../src/definition/schema.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { publishApp, rowCount, runnerScode, signup, TODO, USER, type Published } from './support.ts';

function httpTrigger(id: string, method: 'GET' | 'POST' | 'PATCH', path: string, actionId: string, extra: Partial<Trigger> & { matchSelectors?: string[] } = {}): Trigger {
  const { matchSelectors, ...rest } = extra;
  return {
    trigger: { id: `urn:svc:trigger:${id}`, type: 'http', method, path, ...(matchSelectors ? { matchSelectors } : {}) },
    actionId: `urn:svc:action:${actionId}`,
    initialState: {},
    validation: [],
    ...rest,
  };
}

/** The to-do example, the runner actions, and triggers on them. */
function scode(): AppDefinition {
  return runnerScode((d) => {
    d.triggers.push(
      httpTrigger('sum', 'POST', '/sums', 'flows', { initialState: { items: 'request.body.items' }, validation: ['size(request.body.items) > 0', 'request.query.ok == "yes"'] }),
      httpTrigger('ping-a', 'GET', '/ping/:who', 'flows', { initialState: { items: "[1.0, double(size(request.params.who))]" }, matchSelectors: ["request.query.kind == 'a'"] }),
      httpTrigger('ping-b', 'GET', '/ping/:name', 'flows', { initialState: { items: '[10.0]' }, matchSelectors: ["request.query.kind == 'b'"] }),
      httpTrigger('patch-complete', 'PATCH', '/toDos/:todoId', 'complete-todo', {
        initialState: { todoId: 'request.params.todoId' },
        matchSelectors: ["request.query.mode == 'complete'"],
        isPublic: false,
      }),
      httpTrigger('doomed', 'POST', '/doomed', 'two-writes-then-fail'),
      httpTrigger('no-state', 'POST', '/no-state', 'flows', { initialState: { items: 'request.body.list.items' } }),
    );
  });
}

describe.each(await availableDrivers())('HTTP triggers on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: Published;
  let alice: Awaited<ReturnType<typeof signup>>;
  let bob: Awaited<ReturnType<typeof signup>>;

  const call = async (method: string, path: string, options: { token?: string; body?: unknown; admin?: boolean } = {}) => {
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    // Management credentials: the app's administrator, rules bypassed.
    if (options.admin) Object.assign(headers, { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey! });
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${t.baseUrl}${app.path}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  };
  const newTodo = async (owner: typeof alice, title: string): Promise<string> => {
    const created = await call('POST', '/toDos', { token: owner.token, body: { title, user: owner.user.id } });
    expect(created.status).toBe(201);
    return created.body.id;
  };

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Triggers');
    app = await publishApp(t, tenant, scode());
    alice = await signup(t, app.path, 'Alice');
    bob = await signup(t, app.path, 'Bob');
  }, 120_000);
  afterAll(() => t?.close());

  it('completes a to-do for its owner (200, status done), 404 for another user, 401 for anonymous', async () => {
    const todoId = await newTodo(alice, 'write the runner');
    const anonymous = await call('POST', `/toDos/${todoId}/complete`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toContain('application/problem+json');
    const other = await call('POST', `/toDos/${todoId}/complete`, { token: bob.token });
    expect(other.status).toBe(404);
    expect(other.headers.get('content-type')).toContain('application/problem+json');
    expect(other.body).toMatchObject({ status: 404, code: 'not_found', errors: [{ path: '/effects/load' }] });
    const still = await call('GET', `/toDos/${todoId}`, { token: alice.token });
    expect(still.body.status).toBe('open');
    const owner = await call('POST', `/toDos/${todoId}/complete`, { token: alice.token });
    expect(owner.status).toBe(200);
    expect(owner.body).toMatchObject({ id: todoId, status: 'done', user: alice.user.id });
    expect(owner.headers.get('x-run-id')).toMatch(/^[0-9a-f-]{36}$/);
    const read = await call('GET', `/toDos/${todoId}`, { token: alice.token });
    expect(read.body.status).toBe('done');
  });

  it('answers 422 naming each validation that is false, and runs when all hold (flow.return status, headers, body)', async () => {
    const refused = await call('POST', '/sums?ok=no', { body: { items: [] } });
    expect(refused.status).toBe(422);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.body.errors).toEqual([
      { path: '/validation/0', message: 'size(request.body.items) > 0 is not true' },
      { path: '/validation/1', message: 'request.query.ok == "yes" is not true' },
    ]);
    const big = await call('POST', '/sums?ok=yes', { body: { items: [1, 2, 3] } });
    expect(big.status).toBe(201);
    expect(big.headers.get('x-size')).toBe('big');
    expect(big.body).toEqual({ total: 6 });
    const small = await call('POST', '/sums?ok=yes', { body: { items: [2] } });
    expect(small.status).toBe(200);
    expect(small.body).toEqual({ total: 2, size: 'small' });
  });

  it('answers 422 naming an initialState member that cannot be evaluated', async () => {
    const reply = await call('POST', '/no-state', { body: { other: 1 } });
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({ code: 'initial_state_failed', errors: [{ path: '/initialState/items' }] });
    expect(reply.body.errors[0].message).toContain('request.body.list.items');
  });

  it('lets matchSelectors choose among triggers on one path (none matching: 404), params named per template', async () => {
    const a = await call('GET', '/ping/abcd?kind=a');
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ total: 5, size: 'small' });
    const b = await call('GET', '/ping/abcd?kind=b');
    expect(b.status).toBe(201);
    expect(b.body).toEqual({ total: 10 });
    const none = await call('GET', '/ping/abcd?kind=c');
    expect(none.status).toBe(404);
    expect(none.headers.get('content-type')).toContain('application/problem+json');
  });

  it('shares a generated route: the trigger takes what its selectors match, the generated PATCH the rest', async () => {
    const todoId = await newTodo(alice, 'shared route');
    const generated = await call('PATCH', `/toDos/${todoId}`, { token: alice.token, body: { title: 'renamed' } });
    expect(generated.status).toBe(200);
    expect(generated.body).toMatchObject({ title: 'renamed', status: 'open' });
    expect(generated.headers.get('x-run-id')).toBeNull();
    const viaTrigger = await call('PATCH', `/toDos/${todoId}?mode=complete`, { token: alice.token, body: {} });
    expect(viaTrigger.status).toBe(200);
    expect(viaTrigger.body).toMatchObject({ id: todoId, title: 'renamed', status: 'done' });
    expect(viaTrigger.headers.get('x-run-id')).not.toBeNull();
    expect((await call('PATCH', `/toDos/${todoId}?mode=complete`, { body: {} })).status).toBe(401);
  });

  it('answers a failed run with its status as a problem, and rolls back its writes', async () => {
    const [todos, users] = [await rowCount(t, app.served, TODO), await rowCount(t, app.served, USER)];
    // Anonymous: the first write is refused by the User rule (403), nothing written.
    const refused = await call('POST', '/doomed');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ status: 403, code: 'forbidden', errors: [{ path: '/effects/user' }] });
    // As the administrator both writes pass the rules, then the run fails on purpose.
    const failed = await call('POST', '/doomed', { admin: true });
    expect(failed.status).toBe(409);
    expect(failed.headers.get('content-type')).toContain('application/problem+json');
    expect(failed.body).toMatchObject({ status: 409, detail: 'Changed my mind.', code: 'changed_mind', errors: [{ path: '/effects/fail' }] });
    expect(failed.body.runId).toBe(failed.headers.get('x-run-id'));
    expect(await rowCount(t, app.served, TODO)).toBe(todos);
    expect(await rowCount(t, app.served, USER)).toBe(users);
  });
});
