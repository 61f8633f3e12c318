// Each application answers on its own origin, `http://{applicationId}.localhost:{port}`, routed by
// Host: there it serves its API and its HTML (the builder's headers pass, never hop-by-hop ones),
// and nothing else: the console, the management API and the health routes answer 404, so an app's
// origin never carries them. The application's status, the publish answer and the integration
// prompts give that origin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { fetchAppOrigin } from '../support/app-origin.ts';
import { publishApp, signup, type Published } from '../runtime-runs/support.ts';
import { hostileScode, PAGE_BODY } from './hostile-page.ts';

interface Status {
  appUrl: string;
  deployments: Array<{ serverVersion: string; apiUrl: string; docsUrl: string; openapiUrl: string }>;
}

describe.each(await availableDrivers())("an application's own origin, on %s", (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: Published;
  let appUrl: string;
  const own = (path: string, init: Parameters<typeof fetchAppOrigin>[1] = {}) => fetchAppOrigin(`${appUrl}${path}`, init);

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Tenant B');
    app = await publishApp(t, tenant, hostileScode());
    appUrl = `http://${app.id}.localhost:${new URL(t.baseUrl).port}`;
  }, 120_000);
  afterAll(async () => t?.close());

  it('serves the API there as on the shared path form', async () => {
    const { token } = await signup(t, app.path, 'Own origin');
    const authorization = `Bearer ${token}`;
    const created = await own(`/api/v${app.serverVersion}/toDos`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization },
      body: JSON.stringify({ title: 'on its own origin', status: 'open' }),
    });
    expect(created.status).toBe(201);
    const mine = (await (await own(`/api/v${app.serverVersion}/toDos`, { headers: { authorization } })).json()) as { items: Array<{ title: string }> };
    const shared = (await (await fetch(`${t.baseUrl}${app.path}/toDos`, { headers: { authorization } })).json()) as { items: Array<{ title: string }> };
    expect(mine.items.map((i) => i.title)).toContain('on its own origin');
    expect(mine).toEqual(shared);
    // Realtime is routed too (it asks for a topic before streaming).
    const realtime = await own(`/api/v${app.serverVersion}/realtime`);
    expect(realtime.status).toBe(400);
    expect(await realtime.text()).toMatch(/Name at least one topic/);
  });

  it("answers the builder's HTML there, with its headers but never hop-by-hop ones", async () => {
    const page = await own(`/api/v${app.serverVersion}/page`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toBe(PAGE_BODY);
    expect(page.headers.get('service-worker-allowed')).toBe('/');
    expect(page.headers.get('set-cookie')).toBe('appbuilder_oidc_state=planted; Path=/');
    expect(page.headers.get('content-security-policy')).toBe("script-src 'unsafe-inline' *");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('keep-alive')).not.toBe('timeout=999');
  });

  it('keeps its cookies on its own host: a Domain attribute is dropped', async () => {
    const response = await own(`/api/v${app.serverVersion}/wide-cookie`);
    expect(response.headers.get('set-cookie')).toBe('planted_wide=1; Path=/');
  });

  it('serves the API reference page there, reading the document of that origin', async () => {
    const docs = await own(`/api/v${app.serverVersion}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await docs.text()).toContain(`/api/v${app.serverVersion}/docs/init.js`);
    const document = (await (await own(`/api/v${app.serverVersion}/openapi.json`)).json()) as { servers: Array<{ url: string }> };
    expect(document.servers[0].url).toBe(`/api/v${app.serverVersion}`);
  });

  it.each(['/console', '/console/', '/v1/applications', '/v1/docs', '/v1/openapi.json', '/healthz', '/readyz', '/metrics', '/api'])(
    'answers 404 for %s: nothing but the app is served on its origin',
    async (path) => {
      const response = await own(path, { headers: { 'x-svc-api-client': tenant.api.apiKey!, authorization: `Bearer ${tenant.api.token!}` } });
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    },
  );

  it("does not serve the path form, nor another application's, on an app's origin", async () => {
    expect((await own(`${app.path}/toDos`)).status).toBe(404);
    const other = `http://00000000-0000-4000-8000-000000000000.localhost:${new URL(t.baseUrl).port}`;
    expect((await fetchAppOrigin(`${other}/api/v${app.serverVersion}/toDos`)).status).toBe(404);
  });

  it('is the address the status, the publish answer and the integration prompts give', async () => {
    expect(t.platform.origins.of(app.id)).toBe(appUrl);
    const application = await tenant.api.get<{ status: Status }>(`/v1/applications/${app.id}`);
    expect(application.status).toBe(200);
    expect(application.body.status.appUrl).toBe(appUrl);
    const [served] = application.body.status.deployments;
    expect(served.docsUrl).toBe(`${appUrl}/api/v${app.serverVersion}/docs`);
    // Node clients, and the console on its own origin, use the path form for JSON.
    expect(served.apiUrl).toBe(`${t.baseUrl}${app.path}`);
    expect(served.openapiUrl).toBe(`${t.baseUrl}${app.path}/openapi.json`);
    const published = await tenant.api.post<{ status: Status }>(`/v1/applications/${app.id}/publish`, { serverVersion: app.serverVersion });
    expect(published.body.status.appUrl).toBe(appUrl);
    const prompts = await tenant.api.get<Record<string, string>>(`/v1/applications/${app.id}/integration-prompts`);
    expect(prompts.body.buildFrontend).toContain(`${appUrl}/api/v${app.serverVersion}/openapi.json`);
    expect(prompts.body.buildFrontend).not.toContain(`/apps/${app.id}`);
  });
});
