// Redaction on values, as the outside conformance run found it: with an app secret whose value is
// `s`, redaction rewrote the run record's serialised member names (`steps` → `[redacted]teps`,
// `status` too): `POST …/actions/{id}/test` answered 500, and event-triggered runs were never
// recorded until the secret changed. Now only the string values of a run's data are redacted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Run } from '../../src/runtime/runs/store.ts';
import { REDACTED } from '../../src/secrets/redaction.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { todoScode } from '../support/examples.ts';
import { apiPath, publishAndWait } from '../frontend/published.ts';
import { signup } from '../runtime-runs/support.ts';

const WELCOME = 'urn:svc:action:welcome';
const USER_CREATED = 'urn:svc:trigger:user-created';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(await availableDrivers())('a one-letter secret value, on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let appId: string;
  let path: string;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Short secret');
    const app = await createTodoApp(tenant, todoScode());
    appId = app.id;
    expect((await tenant.api.request('PUT', `/v1/applications/${appId}/secrets/SHORT`, { body: { value: 's' } })).status).toBe(201);
    await publishAndWait(t, tenant, appId, app.serverVersion);
    path = apiPath(t, appId, app.serverVersion);
  }, 120_000);
  afterAll(async () => t?.close());

  it('records the event-triggered run of a sign-up, and the action test answers 200 with its steps intact', async () => {
    const user = await signup(t, path, 'Sam');
    let runs: Run[] = [];
    for (let deadline = Date.now() + 20_000; runs.length === 0 && Date.now() < deadline; await sleep(200)) {
      runs = (await tenant.api.get<{ items: Run[] }>(`/v1/applications/${appId}/runs?triggerId=${encodeURIComponent(USER_CREATED)}`)).body.items;
    }
    expect(runs).toHaveLength(1);
    expect(runs[0].status).toBe('succeeded');
    expect(runs[0].steps.map((step) => step.actionEffectId)).toEqual(['create']);

    const tested = await tenant.api.post<Run>(`/v1/applications/${appId}/actions/${encodeURIComponent(WELCOME)}/test`, {
      event: { name: 'User.created', payload: { id: user.user.id, name: 'Sam' } },
    });
    expect(tested.status, tested.text).toBe(200);
    expect(Object.keys(tested.body)).toEqual(expect.arrayContaining(['steps', 'status', 'startedAt', 'result']));
    expect(tested.body.status).toBe('succeeded');
    expect(tested.body.steps).toHaveLength(1);
    expect(tested.body.steps[0]).toMatchObject({ actionEffectId: 'create', effect: 'data.create' });
    // The data is still redacted, value by value: the title held the letter.
    expect(JSON.stringify(tested.body.steps[0].output)).toContain(REDACTED);
  });
});
