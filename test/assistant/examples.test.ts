import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type AppReply, type Tenant } from '../support/tenant.ts';
import { loadExample } from '../support/examples.ts';

const drivers = await availableDrivers();

describe.each(drivers)('example applications of the assistant corpus (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Examples');
  });
  afterAll(() => t?.close());

  it.each(['todo', 'library', 'crm'])('examples/%s.app.json is created through the API unchanged', async (name) => {
    const example = loadExample(name);
    const reply = await tenant.api.post<AppReply>('/v1/applications', { projectId: tenant.projectId, name: example.name, scode: example.scode });
    expect(reply.status).toBe(201);
    expect(reply.body.scode).toEqual(example.scode);
    expect(reply.body.serverVersion).toBe(example.scode.version);
  });
});
