// Issue 25 (part B): the generated frontend in chromium shows the app's sign-in providers and the
// code step of a second factor. The bundle is served on its own origin (the API forwarded under
// /apps/), the OpenID provider is a real one on loopback, and the API's origin is not the
// frontend's: the frontend's origin is allowed in AUTH_REDIRECT_ORIGINS.
import { unzipSync, strFromU8 } from 'fflate';
import { Secret, TOTP } from 'otpauth';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp } from '../support/tenant.ts';
import { ServedApi, todoScodeWithoutEvents } from '../runtime/served-app.ts';
import { chromiumMissing, configure, launchChromium, serveBundle, type StaticSite } from '../frontend/browser-support.ts';
import { apiPath, downloadBundle, publishAndWait } from '../frontend/published.ts';
import { startTestProvider, type TestProvider } from './oidc-provider.ts';

const noChromium = chromiumMissing('mfa frontend test');

describe.skipIf(noChromium)('provider buttons and the code step in the generated frontend', () => {
  let t: TestPlatform;
  let site: StaticSite;
  let browser: Browser;
  let provider: TestProvider;
  let api: ServedApi;
  let secret: string;
  let recoveryCodes: string[];
  const allowBefore = process.env.APPBUILDER_HTTP_ALLOW;

  beforeAll(async () => {
    process.env.APPBUILDER_HTTP_ALLOW = '127.0.0.1';
    t = await startTestPlatform('pglite');
    const tenant = await createTenant(t, 'Frontend factors');
    const app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publishAndWait(t, tenant, app.id, app.serverVersion);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    const files = Object.entries(unzipSync((await downloadBundle(tenant, app.id)).bytes)).map(([path, data]) => ({ path, content: strFromU8(data) }));
    site = await serveBundle(configure(files, apiPath(t, app.id, app.serverVersion)), t.baseUrl);

    // The provider sends the browser back to the app's own origin (Chromium resolves `*.localhost` itself).
    provider = await startTestProvider([`${t.platform.origins.of(app.id)}/api/v${app.serverVersion}/auth/oauth/test/callback`]);
    const put = async (path: string, value: string) => expect((await tenant.api.put(`/v1/applications/${app.id}/${path}`, { value })).status).toBe(201);
    await put('secrets/OIDC_TEST_SECRET', provider.clientSecret);
    await put('variables/AUTH_PROVIDERS', JSON.stringify([{ name: 'test', displayName: 'Test ID', issuer: provider.issuer, clientId: provider.clientId, clientSecret: 'OIDC_TEST_SECRET' }]));
    await put('variables/AUTH_REDIRECT_ORIGINS', site.origin);

    const { token } = await api.signup('Ann', 'ann@example.test', 'correct horse');
    secret = (await api.post<{ secret: string }>('/auth/mfa/totp/enroll', {}, token)).body.secret;
    const verified = await api.post<{ recoveryCodes: string[] }>('/auth/mfa/totp/verify', { code: codeOf(0) }, token);
    recoveryCodes = verified.body.recoveryCodes;
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    if (allowBefore === undefined) delete process.env.APPBUILDER_HTTP_ALLOW;
    else process.env.APPBUILDER_HTTP_ALLOW = allowBefore;
    await browser?.close();
    await site?.close();
    await provider?.close();
    await t?.close();
  });

  const codeOf = (steps: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + steps * 30_000 });

  it('logs in with a password, then asks for the code', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${site.origin}/#/login`);
    await page.getByLabel('Email').fill('ann@example.test');
    await page.getByLabel('Password').fill('correct horse');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Enter your code' }).waitFor();
    const near = new Set([-1, 0, 1, 2].map(codeOf));
    await page.getByLabel('Code').fill(['000000', '111111', '222222', '333333', '444444'].find((code) => !near.has(code))!);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('That code is not right').waitFor();
    await page.getByLabel('Code').fill(codeOf(1));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('Signed in as Ann').waitFor();
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('signs in with the provider button, comes back to the frontend and asks for the code', async () => {
    provider.signInAs({ sub: 'ann-at-provider', email: 'ann@example.test', email_verified: true, name: 'Ann' });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${site.origin}/#/login`);
    await page.getByRole('link', { name: 'Sign in with Test ID' }).click();
    await page.getByRole('heading', { name: 'Enter your code' }).waitFor();
    // Back on the frontend's origin, the tokens' fragment already gone from the address.
    expect(new URL(page.url()).origin).toBe(site.origin);
    expect(page.url()).not.toContain('mfaToken');
    await page.getByLabel('Code').fill(recoveryCodes[0]);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('Signed in as Ann').waitFor();
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
