// The frontend of each published version served on the application's own origin: `{appUrl}/`
// the latest version, `{appUrl}/v{serverVersion}/` a given one, calling its API on the same
// origin (`/api/v…`); never on the shared path form; its URLs in the status and the publish
// answer. In Chromium (which resolves *.localhost itself) the served page signs up and lists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { fetchAppOrigin } from '../support/app-origin.ts';
import { chromiumMissing, launchChromium, todoFlow } from './browser-support.ts';
import { publishAndWait } from './published.ts';

interface Status {
  appUrl: string;
  frontendUrl?: string;
  deployments: Array<{ serverVersion: string; frontendUrl: string }>;
}

const noChromium = chromiumMissing('served frontend test');

describe.each(await availableDrivers())('the served frontend on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let applicationId: string;
  let serverVersion: string;
  let appUrl: string;
  let browser: Browser | undefined;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Served frontend');
    const app = await createTodoApp(tenant);
    applicationId = app.id;
    serverVersion = app.serverVersion;
    await publishAndWait(t, tenant, app.id, app.serverVersion);
    appUrl = `http://${app.id}.localhost:${new URL(t.baseUrl).port}`;
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('serves the latest version at {appUrl}/ and each version at {appUrl}/v{serverVersion}/, calling its API on the same origin', async () => {
    const index = await fetchAppOrigin(`${appUrl}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(await index.text()).toContain('<script type="module" src="app.js"></script>');
    const config = await fetchAppOrigin(`${appUrl}/config.js`);
    expect(config.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await config.text()).split('\n')[0]).toBe(`export const API_BASE_URL = "/api/v${serverVersion}";`);
    const versioned = await fetchAppOrigin(`${appUrl}/v${serverVersion}/lib/api.js`);
    expect(versioned.status).toBe(200);
    expect(await (await fetchAppOrigin(`${appUrl}/v${serverVersion}/`)).text()).toBe(await (await fetchAppOrigin(`${appUrl}/index.html`)).text());
    const bare = await fetchAppOrigin(`${appUrl}/v${serverVersion}`);
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe(`/v${serverVersion}/`);
    expect((await fetchAppOrigin(`${appUrl}/v9.9.9/`)).status).toBe(404);
    expect((await fetchAppOrigin(`${appUrl}/nothing.js`)).status).toBe(404);
    // `/api/…` stays the API.
    expect((await fetchAppOrigin(`${appUrl}/api/v${serverVersion}/toDos`)).headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('serves nothing HTML on the shared path form', async () => {
    for (const path of [`${t.config.appsPath}/${applicationId}/frontend/`, `${t.config.appsPath}/${applicationId}/frontend/index.html`, `${t.config.appsPath}/${applicationId}/`]) {
      const reply = await fetch(`${t.baseUrl}${path}`);
      expect(reply.status).toBe(404);
      expect(reply.headers.get('content-type')).not.toMatch(/html/);
    }
  });

  it('gives its URLs in the status and the publish answer', async () => {
    const application = await tenant.api.get<{ status: Status }>(`/v1/applications/${applicationId}`);
    expect(application.body.status.frontendUrl).toBe(`${appUrl}/`);
    expect(application.body.status.deployments[0].frontendUrl).toBe(`${appUrl}/v${serverVersion}/`);
    const published = await tenant.api.post<{ status: Status }>(`/v1/applications/${applicationId}/publish`, { serverVersion });
    expect(published.body.status.deployments.find((d) => d.serverVersion === serverVersion)?.frontendUrl).toBe(`${appUrl}/v${serverVersion}/`);
  });

  it.skipIf(noChromium)('signs up, creates and lists in Chromium on its own origin, with no CORS and no proxy', async () => {
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await todoFlow(page, appUrl, (line) => console.log(`[served frontend] ${line}`));
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);
});
