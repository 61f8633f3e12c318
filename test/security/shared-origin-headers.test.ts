// A tenant's trigger answered `text/html` with `service-worker-allowed: /` and a cookie for every
// path on the origin the console and every other customer's app share; in Chromium that took over
// the console. The attacker's requests: tenant B publishes such a trigger, a victim opens it on the
// shared path form. The answer is plain text, never carries B's cookie, service worker scope, CSP,
// CORS or hop-by-hop headers, and always says nosniff and a sandbox CSP. HTML (the API reference
// page) is answered on the app's own origin only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { publishApp, type Published } from '../runtime-runs/support.ts';
import { hostileScode, PAGE_BODY } from './hostile-page.ts';

const SANDBOX = "sandbox; default-src 'none'";

describe.each(await availableDrivers())('a generated app on the shared origin, on %s', (driver) => {
  let t: TestPlatform;
  let app: Published;
  let tenant: Tenant;
  const shared = (path: string) => fetch(`${t.baseUrl}${app.path}${path}`, { redirect: 'manual' });

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Tenant B');
    app = await publishApp(t, tenant, hostileScode());
  }, 120_000);
  afterAll(async () => t?.close());

  it("answers a trigger's HTML as plain text, without the builder's cookie, service worker scope, CSP, CORS or hop-by-hop headers", async () => {
    const response = await shared('/page');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await response.text()).toBe(PAGE_BODY);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(response.headers.get('service-worker-allowed')).toBeNull();
    expect(response.headers.get('clear-site-data')).toBeNull();
    expect([...response.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    expect(response.headers.get('keep-alive')).not.toBe('timeout=999');
    expect(response.headers.get('content-security-policy')).toBe(SANDBOX);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    // An API's own header still passes.
    expect(response.headers.get('x-tenant')).toBe('B');
  });

  it('answers a service worker script as plain text with no scope', async () => {
    const response = await shared('/sw.js');
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('service-worker-allowed')).toBeNull();
    expect(response.headers.get('content-security-policy')).toBe(SANDBOX);
  });

  it('keeps JSON as JSON, and says nosniff and sandbox on every answer, errors included', async () => {
    const list = await shared('/toDos');
    expect(list.status).toBe(200);
    expect(list.headers.get('content-type')).toMatch(/^application\/json/);
    expect(list.headers.get('x-content-type-options')).toBe('nosniff');
    expect(list.headers.get('content-security-policy')).toBe(SANDBOX);
    const missing = await shared('/no-such-route');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(missing.headers.get('content-security-policy')).toBe(SANDBOX);
    expect(missing.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it("sends the API reference page's readers to the app's own origin, and keeps the OpenAPI document here", async () => {
    const docs = await shared('/docs');
    expect(docs.status).toBe(302);
    expect(docs.headers.get('location')).toBe(`${t.platform.origins.of(app.id)}/api/v${app.serverVersion}/docs`);
    expect(docs.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const openapi = await shared('/openapi.json');
    expect(openapi.status).toBe(200);
    const document = (await openapi.json()) as { servers: Array<{ url: string }> };
    expect(document.servers[0].url).toBe(app.path);
    // The page's script, asked for directly, is not a script here.
    const script = await shared('/docs/assets/swagger-ui-bundle.js');
    expect(script.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  });

  it('keeps the console and the management API strict: their own CSP, nosniff, no service worker scope', async () => {
    const page = await fetch(`${t.baseUrl}/console`);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(page.headers.get('service-worker-allowed')).toBeNull();
    // Refusals too (401 without credentials).
    for (const response of [await fetch(`${t.baseUrl}/v1/applications`), await fetch(`${t.baseUrl}/v1/oauth/token`, { method: 'POST' })]) {
      expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('service-worker-allowed')).toBeNull();
    }
    const listed = await fetch(`${t.baseUrl}/v1/applications`, { headers: { authorization: `Bearer ${tenant.api.token!}`, 'x-svc-api-client': tenant.api.apiKey! } });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
  });
});
