// In Chromium, the attack as it ran: tenant B's trigger answered an HTML page with a script and
// `service-worker-allowed: /` on the origin the console shares; the victim who opened it got B's
// service worker for the whole site and B's cookie for every path. Now, on the shared origin the
// page is plain text in a sandbox: no script runs, no service worker registers, no cookie is set.
// On B's own origin (`http://{id}.localhost:{port}`, which Chromium resolves itself) the page runs,
// but what it registers and stores stays on that origin: the console, at 127.0.0.1 or localhost,
// is not controlled by its worker and sees none of its cookies, and its storage is out of reach.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumMissing, launchChromium } from '../frontend/browser-support.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant } from '../support/tenant.ts';
import { publishApp, type Published } from '../runtime-runs/support.ts';
import { hostileScode } from './hostile-page.ts';

const noChromium = chromiumMissing('service worker test');

/** Registers a service worker from the page; answers 'registered' or why not. */
const register = (page: Page, script: string, scope: string) =>
  // Browser-side code as text: the project compiles without DOM types.
  page.evaluate<string>(`(async () => {
    if (!('serviceWorker' in navigator)) return 'no serviceWorker in this context';
    try {
      const registration = await navigator.serviceWorker.register(${JSON.stringify(script)}, { scope: ${JSON.stringify(scope)} });
      await navigator.serviceWorker.ready;
      return registration.active ? 'registered' : 'no active worker';
    } catch (error) {
      return 'refused: ' + error.message;
    }
  })()`);

describe.skipIf(noChromium)('a tenant page against the console, in Chromium', () => {
  let t: TestPlatform;
  let app: Published;
  let browser: Browser;
  let context: BrowserContext;
  let port: string;
  let appUrl: string;
  const consoles = () => [`http://127.0.0.1:${port}/console`, `http://localhost:${port}/console`];

  beforeAll(async () => {
    t = await startTestPlatform('pglite');
    app = await publishApp(t, await createTenant(t, 'Tenant B'), hostileScode());
    port = new URL(t.baseUrl).port;
    appUrl = `http://${app.id}.localhost:${port}`;
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** The console as the victim sees it: its own page, no worker in control, and the cookies it can read. */
  async function consoleSeen(page: Page, url: string) {
    await page.goto(url);
    await page.waitForSelector('#console');
    return page.evaluate<{ owned: boolean; controlled: boolean; cookie: string; registrations: number }>(`(async () => ({
      owned: document.body.innerText.includes('owned by tenant B'),
      controlled: navigator.serviceWorker.controller !== null,
      cookie: document.cookie,
      registrations: (await navigator.serviceWorker.getRegistrations()).length,
    }))()`);
  }

  it('shows the page on the shared origin as text: no script runs, no service worker registers, no cookie reaches the console', async () => {
    context = await browser.newContext();
    const page = await context.newPage();
    const shared = `http://127.0.0.1:${port}${app.path}`;
    const answer = await page.goto(`${shared}/page`);
    expect(answer?.status()).toBe(200);
    expect(await page.evaluate('document.contentType')).toBe('text/plain');
    expect(await page.title()).not.toMatch(/^ran:/);
    expect(await page.$('#owned')).toBeNull();
    // Even a script run there by other means could not register B's worker (a sandboxed, opaque origin).
    expect(await register(page, `${app.path}/sw.js`, '/')).toMatch(/^(refused|no serviceWorker)/);
    expect(await context.cookies(consoles())).toEqual([]);
    for (const url of consoles()) {
      const seen = await consoleSeen(page, url);
      expect(seen).toEqual({ owned: false, controlled: false, cookie: '', registrations: 0 });
    }
    await context.close();
  });

  it("runs the page on the app's own origin, where its worker, cookies and storage stay", async () => {
    context = await browser.newContext();
    const victim = await context.newPage();
    // The victim signed in to the console: its session is in the console origin's storage.
    await victim.goto(consoles()[0]);
    await victim.evaluate(`sessionStorage.setItem('secret', 'console token'); localStorage.setItem('secret', 'console token')`);

    const page = await context.newPage();
    await page.goto(`${appUrl}/api/v${app.serverVersion}/page`);
    expect(await page.title()).toMatch(/^ran:/);
    expect(await page.$('#owned')).not.toBeNull();
    expect(await register(page, `/api/v${app.serverVersion}/sw.js`, '/')).toBe('registered');
    // A cookie for the parent domain, from the service (Domain dropped) and from the page itself.
    await page.goto(`${appUrl}/api/v${app.serverVersion}/wide-cookie`);
    await page.goto(`${appUrl}/api/v${app.serverVersion}/page`);
    await page.evaluate(`document.cookie = 'from_script=1; domain=localhost; path=/'`);
    expect(await page.evaluate(`localStorage.getItem('secret') + ' ' + sessionStorage.getItem('secret')`)).toBe('null null');
    // Its worker controls its own origin…
    await page.reload();
    expect(await page.evaluate(`document.body.innerText`)).toContain('owned by tenant B');

    // …and not the console, on either shared host name.
    for (const url of consoles()) {
      const seen = await consoleSeen(victim, url);
      expect(seen, url).toEqual({ owned: false, controlled: false, cookie: '', registrations: 0 });
    }
    const consoleCookies = await context.cookies(consoles());
    expect(consoleCookies.map((c) => c.name)).toEqual([]);
    await context.close();
  });
});
