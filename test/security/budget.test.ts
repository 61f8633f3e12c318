// Issue 18 item 7, the attacker's requests: a list filter or an access rule that exhausts its
// evaluation budget used to yield an empty list (or a deny) with 200. Now the request answers 400
// naming the expression, an action's data.find with such a filter fails with 400, and a
// definition whose record-independent part exhausts the budget is refused at save (409 with the
// expression's JSON pointer), as other expression errors are.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Action, AppDefinition } from '../../src/definition/schema.ts';
import type { Run } from '../../src/runtime/runs/store.ts';
import { availableDrivers } from '../support/databases.ts';
import { todoScode } from '../support/examples.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { publishApp, runnerScode, signup, type Published } from '../runtime-runs/support.ts';

interface Problem {
  status: number;
  detail: string;
  errors: Array<{ path: string; message: string }>;
}

/** 50 × 50 × 50 iterations: far beyond the 100,000-step budget, whatever the record. */
const L = `[${Array.from({ length: 50 }, (_, i) => i).join(', ')}]`;
const runaway = (test: string) => `${L}.all(a, ${L}.all(b, ${L}.all(c, ${test})))`;
const FILTER = `record.title != '' && ${runaway('a + b + c >= 0')}`;
/**
 * Depends on auth, so no save-time evaluation can know it; it exhausts the budget when a signed-in
 * caller deletes (other operations stop at `operation == 'delete'`, so sign-up and reads work).
 */
const RULE = `operation == 'delete' && auth != null && ${runaway('a + b + c >= size(auth.name) - 100')}`;

/** data.find with the filter it is given (bound, so not checked at save). */
const findWith: Action = {
  id: 'urn:svc:action:find-with',
  startEffectId: 'find',
  effects: [{ actionEffectId: 'find', effect: 'data.find', params: { model: 'ToDo' }, bindParams: { filter: 'state.filter' } }],
  bindReturnValue: 'results.find',
};

function scode(): AppDefinition {
  return runnerScode((d) => {
    d.actions.push(findWith);
    // The ToDo model's first rule: signed-in callers deleting a to-do meet the runaway rule first.
    d.models.find((m) => m.name === 'ToDo')!.accessControl.rules.unshift({ access: 'allow', criteria: RULE });
  });
}

describe.each(await availableDrivers())('expressions that exhaust their budget, on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: Published;
  let alice: Awaited<ReturnType<typeof signup>>;
  let todoId: string;

  const get = async (path: string, token?: string, method = 'GET') => {
    const response = await fetch(`${t.baseUrl}${app.path}${path}`, { method, headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: response.status, type: response.headers.get('content-type'), body: (await response.json()) as Problem & { items?: unknown[] } };
  };

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Budget');
    app = await publishApp(t, tenant, scode());
    alice = await signup(t, app.path, 'Alice');
    const created = await fetch(`${t.baseUrl}${app.path}/toDos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${alice.token}` },
      body: JSON.stringify({ title: 'keep me', user: alice.user.id }),
    });
    expect(created.status).toBe(201);
    todoId = ((await created.json()) as { id: string }).id;
  }, 120_000);
  afterAll(() => t?.close());

  it('a list filter that exhausts the budget answers 400 naming the filter (was: 200 with an empty list)', async () => {
    const started = performance.now();
    const answer = await get(`/users?filter=${encodeURIComponent(FILTER.replace("record.title != ''", "record.name != ''"))}`, alice.token);
    expect(answer.status).toBe(400);
    expect(answer.type).toContain('application/problem+json');
    expect(answer.body.detail).toContain(`The filter '${FILTER.replace("record.title != ''", "record.name != ''")}'`);
    // The step budget, or the time budget first on a busy machine.
    expect(answer.body.detail).toMatch(/exceeded its (step|time) budget/);
    expect(answer.body.errors[0].path).toBe('/filter');
    expect(performance.now() - started).toBeLessThan(5000);
    // A filter within the budget still works.
    expect((await get(`/users?filter=${encodeURIComponent("record.name != ''")}`, alice.token)).status).toBe(200);
  });

  it('an access rule that exhausts the budget in a request answers 400 naming the rule (was: a silent deny)', async () => {
    const answer = await get(`/toDos/${todoId}`, alice.token, 'DELETE');
    expect(answer.status).toBe(400);
    expect(answer.type).toContain('application/problem+json');
    expect(answer.body.detail).toContain(`The access rule '${RULE}'`);
    expect(answer.body.detail).toMatch(/exceeded its (step|time) budget/);
    // Nothing was deleted, and reading (where the rule stops at `operation == 'delete'`) still works.
    const read = await get(`/toDos/${todoId}`, alice.token);
    expect(read.status).toBe(200);
  });

  it("an action's data.find (run as the administrator) with such a filter fails with 400, not 500 and not an empty list", async () => {
    const tested = await tenant.api.post<Run>(`/v1/applications/${app.id}/actions/${encodeURIComponent(findWith.id)}/test`, {
      initialState: { filter: FILTER },
    });
    expect(tested.status).toBe(200);
    expect(tested.body.status).toBe('failed');
    expect(tested.body.error).toMatchObject({ status: 400, effectId: 'find' });
    expect(tested.body.error?.message).toMatch(/exceeded its (step|time) budget/);
  });

  it('refuses at save (409 with the pointer) an expression whose record-independent part exhausts the budget', async () => {
    const cases: Array<[string, (d: AppDefinition) => void, string]> = [
      ['access rule', (d) => d.models[0].accessControl.rules.unshift({ access: 'allow', criteria: FILTER }), '/models/0/accessControl/rules/0/criteria'],
      ['trigger validation', (d) => d.triggers[0].validation.push(runaway('a + b + c >= 0')), `/triggers/0/validation/${(todoScode() as unknown as AppDefinition).triggers[0].validation.length}`],
      ['bindReturnValue', (d) => (d.actions[0].bindReturnValue = `${runaway('a >= 0')} ? 1 : 2`), '/actions/0/bindReturnValue'],
    ];
    for (const [name, mutate, pointer] of cases) {
      const definition = todoScode() as unknown as AppDefinition;
      mutate(definition);
      const reply = await tenant.api.put<Problem>(`/v1/applications/${app.id}/scode`, definition);
      expect(reply.status, `${name}: ${reply.text.slice(0, 300)}`).toBe(409);
      const error = reply.body.errors.find((e) => e.path === pointer);
      expect(error, `${name}: ${JSON.stringify(reply.body.errors).slice(0, 300)}`).toBeDefined();
      expect(error!.message).toContain('exhausts its evaluation budget');
    }
    // An expression that depends on auth is kept: only a request can tell.
    const kept = todoScode() as unknown as AppDefinition;
    kept.models.find((m) => m.name === 'ToDo')!.accessControl.rules.unshift({ access: 'allow', criteria: RULE });
    expect((await tenant.api.put(`/v1/applications/${app.id}/scode`, kept)).status).toBe(200);
  });
});
