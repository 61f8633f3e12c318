// A write sent without a body (`curl -X POST …/publish`): the documents mark every body required,
// so it answers 400 saying a JSON body is missing, naming the members it needs or that `{}` will
// do, not the validator's "must be object"; `{}` then publishes the current version.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';

describe.each(await availableDrivers())('a write without a body (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'No body');
  }, 300_000);
  afterAll(() => t?.close());

  it('says a body is missing where every member is optional, and `{}` publishes the current version', async () => {
    const app = await createTodoApp(tenant);
    const none = await tenant.api.request<{ detail: string; errors: Array<{ path: string; message: string }> }>('POST', `/v1/applications/${app.id}/publish`);
    expect(none.status).toBe(400);
    expect(none.body.detail).toMatch(/no body: .*`\{\}`/);
    expect(none.body.errors).toEqual([{ path: '/', message: 'a JSON body is missing' }]);
    const reply = await tenant.api.request<{ status: { deployments: Array<{ serverVersion: string }> } }>('POST', `/v1/applications/${app.id}/publish`, { body: {} });
    expect(reply.status, reply.text).toBe(202);
    expect(reply.body.status.deployments.map((d) => d.serverVersion)).toContain(app.serverVersion);
  }, 120_000);

  it('says that a JSON body is missing, naming its required members, where the route needs them', async () => {
    const reply = await tenant.api.request<{ detail: string; errors: Array<{ path: string; message: string }> }>('POST', '/v1/projects');
    expect(reply.status).toBe(400);
    expect(reply.headers.get('content-type')).toContain('application/problem+json');
    expect(reply.body.detail).toMatch(/no body: send a JSON object .*`name`/);
    expect(reply.body.errors).toEqual([{ path: '/', message: 'a JSON body is missing' }]);
  });
});
