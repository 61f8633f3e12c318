// URLs in answers (issue 23): the publish answer names the version being published with its
// `apiUrl`, `docsUrl` and `openapiUrl`, which answer once its job has run; the Application's
// `status.deployments` carries them for each version, the latest with its frontend bundle URL;
// the origin is the request's, or APPBUILDER_PUBLIC_URL when set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { waitForJob } from './support.ts';
import { fetchAppOrigin } from '../support/app-origin.ts';

interface Deployment {
  serverVersion: string;
  state: string;
  apiUrl?: string;
  docsUrl?: string;
  openapiUrl?: string;
  frontendBundleUrl?: string;
}
type Application = Omit<AppReply, 'status'> & { status: { jobs: Array<{ id: string; jobType: string }>; deployments: Deployment[]; appUrl?: string } };

describe.each(await availableDrivers())('URLs of served versions on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Urls');
  });
  afterAll(() => t?.close());

  it('publishes, then follows the apiUrl of the publish answer to a 200', async () => {
    const app = await createTodoApp(tenant);
    const reply = await tenant.api.post<Application>(`/v1/applications/${app.id}/publish`, {});
    expect(reply.status).toBe(202);
    const pending = reply.body.status.deployments.find((d) => d.serverVersion === app.serverVersion)!;
    const apiUrl = `${t.baseUrl}/apps/${app.id}/api/v${app.serverVersion}`;
    // The reference page (HTML) is on the app's own origin; the JSON API on the path form too.
    const appUrl = t.platform.origins.of(app.id);
    expect(reply.body.status.appUrl).toBe(appUrl);
    expect(pending).toMatchObject({ state: 'pending', apiUrl, docsUrl: `${appUrl}/api/v${app.serverVersion}/docs`, openapiUrl: `${apiUrl}/openapi.json` });

    const job = reply.body.status.jobs.find((j) => j.jobType === 'deployment')!;
    expect((await waitForJob(tenant, app.id, job.id)).status).toBe('succeeded');

    // Followed as given: the list (as the builder, the app's administrator), the reference page, the document.
    const list = await fetch(`${pending.apiUrl}/toDos`, { headers: { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey! } });
    expect(list.status).toBe(200);
    expect(await list.json()).toMatchObject({ items: [], total: 0 });
    expect((await fetchAppOrigin(pending.docsUrl!)).status).toBe(200);
    const openapi = await fetch(pending.openapiUrl!);
    expect(openapi.status).toBe(200);
    expect(((await openapi.json()) as { openapi: string }).openapi).toBe('3.1.0');

    // The Application now shows the version served, at the same address, with its frontend bundle.
    const application = await tenant.api.get<Application>(`/v1/applications/${app.id}`);
    expect(application.body.status.deployments).toEqual([
      expect.objectContaining({
        serverVersion: app.serverVersion,
        state: 'active',
        apiUrl,
        frontendBundleUrl: `${t.baseUrl}/v1/applications/${app.id}/frontendBundle`,
      }),
    ]);
    // Every answer carrying the Application carries them: the list too, and an edit.
    const listed = await tenant.api.get<{ items: Application[] }>(`/v1/applications?projectId=${tenant.projectId}`);
    expect(listed.body.items.find((a) => a.id === app.id)!.status.deployments[0].apiUrl).toBe(apiUrl);
    const edited = await tenant.api.request<Application>('PUT', `/v1/applications/${app.id}/scode`, { body: application.body.scode });
    expect(edited.status).toBe(200);
    expect(edited.body.status.deployments[0].apiUrl).toBe(apiUrl);
    // The management OpenAPI describes them.
    const management = await tenant.api.get<{ components: { schemas: Record<string, unknown> } }>('/v1/openapi.json');
    expect(JSON.stringify(management.body)).toContain('"apiUrl"');
  });

  it("takes the origin from the request's Host", async () => {
    const app = await createTodoApp(tenant);
    const reply = await t.platform.server.inject({
      method: 'POST',
      url: `/v1/applications/${app.id}/publish`,
      headers: { host: 'builder.example.test:8443', authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey!, 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(reply.statusCode).toBe(202);
    const deployment = (reply.json() as Application).status.deployments[0];
    expect(deployment.apiUrl).toBe(`http://builder.example.test:8443/apps/${app.id}/api/v${app.serverVersion}`);
  });
});

describe('URLs under APPBUILDER_PUBLIC_URL', () => {
  let t: TestPlatform;
  afterAll(() => t?.close());

  it('uses the public origin, whatever the request', async () => {
    t = await startTestPlatform('pglite', { publicUrl: 'https://apps.example.test' });
    const tenant = await createTenant(t, 'Public');
    const app = await createTodoApp(tenant);
    const reply = await tenant.api.post<Application>(`/v1/applications/${app.id}/publish`, {});
    expect(reply.body.status.deployments[0]).toMatchObject({
      apiUrl: `https://apps.example.test/apps/${app.id}/api/v${app.serverVersion}`,
      openapiUrl: `https://apps.example.test/apps/${app.id}/api/v${app.serverVersion}/openapi.json`,
    });
  });
});
