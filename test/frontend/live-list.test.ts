/**
 * Live lists of the generated frontend (DESIGN §17) in Chromium against a published to-do app:
 * with the list page open, to-dos created, changed and deleted through the API appear, change and
 * disappear without a reload; a second user's open list shows only what they may read; a filtered
 * list takes in a record once it matches (the page is fetched again on each change, so the
 * server's filter, sort and paging decide); a dropped stream is resumed by the browser with
 * Last-Event-ID (the changes missed meanwhile replayed), or, past the retention, answered `reset`
 * (the page fetched again); leaving the page closes the EventSource, and a signed-out visitor opens
 * none. Without /usr/bin/chromium it skips here and fails in CI, as browser.test.ts.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unzipSync, strFromU8 } from 'fflate';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp } from '../support/tenant.ts';
import { DEFAULT_REALTIME_SETTINGS } from '../../src/realtime/settings.ts';
import { chromiumMissing, configure, launchChromium, serveBundle, type StaticSite } from './browser-support.ts';
import { apiPath, downloadBundle, publishAndWait } from './published.ts';

const noChromium = chromiumMissing('live list test');

interface User {
  token: string;
  user: { id: string; name: string };
}

/** Counts the page's EventSources (opened, and still open) by wrapping the constructor before the app loads. */
const TRACK_SOURCES = `(() => {
  const Native = window.EventSource;
  window.__sources = [];
  window.EventSource = class extends Native {
    constructor(...args) {
      super(...args);
      window.__sources.push(this);
    }
  };
})();`;

/** A realtime request as it went by: its Last-Event-ID header and what the server streamed back. */
interface Tapped {
  url: string;
  lastEventId: string | undefined;
  text: string;
}

/**
 * Between the static site and the platform: forwards everything, and lets a test cut the realtime
 * streams (ended cleanly towards the browser, which then reconnects as after a network failure)
 * and hold the reconnections until it has made its changes. It also asks for a 100 ms reconnection
 * delay (an SSE `retry:` line) instead of the browser's default seconds.
 */
async function realtimeTap(apiOrigin: string) {
  const api = new URL(apiOrigin);
  const streams = new Set<{ cut(): void }>();
  const held: Array<() => void> = [];
  const tapped: Tapped[] = [];
  let holding = false;
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const realtime = new URL(req.url ?? '/', 'http://local').pathname.endsWith('/realtime');
    const upstream = httpRequest({ host: api.hostname, port: api.port, method: req.method, path: req.url, headers: { ...req.headers, host: api.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      if (!realtime || answer.statusCode !== 200) return void answer.pipe(res);
      const entry: Tapped = { url: req.url ?? '', lastEventId: req.headers['last-event-id'] as string | undefined, text: '' };
      tapped.push(entry);
      res.write('retry: 100\n\n');
      const stream = { cut: () => (upstream.destroy(), res.end()) };
      streams.add(stream);
      answer.on('data', (chunk: Buffer) => {
        entry.text += chunk.toString();
        res.write(chunk);
      });
      answer.on('close', () => streams.delete(stream));
    });
    upstream.on('error', () => res.end());
    req.pipe(upstream);
  };
  const server = createServer((req, res) => {
    if (holding && new URL(req.url ?? '/', 'http://local').pathname.endsWith('/realtime')) held.push(() => forward(req, res));
    else forward(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tapped,
    /** Cuts every open stream and holds the reconnections. */
    cut: () => {
      holding = true;
      for (const stream of [...streams]) stream.cut();
    },
    /** Lets the held reconnections (and later ones) through. */
    release: () => {
      holding = false;
      for (const go of held.splice(0)) go();
    },
    held: () => held.length,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const RETENTION_SECONDS = 3;

describe.skipIf(noChromium)('live lists in chromium', () => {
  let t: TestPlatform;
  let site: StaticSite;
  let tap: Awaited<ReturnType<typeof realtimeTap>>;
  let browser: Browser;
  let appUrl: string;
  const contexts: BrowserContext[] = [];
  const errors: string[] = [];
  const stamp = Date.now().toString(36);

  const call = async (method: string, path: string, who: User | null, body?: unknown) => {
    const response = await fetch(`${appUrl}${path}`, {
      method,
      headers: { ...(who ? { authorization: `Bearer ${who.token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return (text ? JSON.parse(text) : null) as Record<string, unknown> & { id: string };
  };
  const signUp = async (name: string): Promise<User> =>
    (await call('POST', '/auth/signup', null, { name, email: `${name.toLowerCase()}-${stamp}@example.com`, password: 'correct horse battery' })) as unknown as User;

  /** A page of its own browser context, signed in as `who` (the session in localStorage, as the log-in page leaves it). */
  async function pageOf(who: User | null): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    contexts.push(context);
    await context.addInitScript(TRACK_SOURCES);
    if (who) {
      await context.addInitScript(`localStorage.setItem('appbuilder.token', ${JSON.stringify(who.token)}); localStorage.setItem('appbuilder.user', ${JSON.stringify(JSON.stringify(who.user))});`);
    }
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    return page;
  }

  /** Opens a list and waits until its stream is open (changes from then on reach it). */
  async function openList(page: Page, hash: string): Promise<void> {
    await page.goto(`${site.origin}/${hash}`);
    await page.locator('.list-body[data-live="open"]').waitFor();
  }

  // Browser code as text: the project has no DOM types.
  const sources = (page: Page) => page.evaluate<Array<{ readyState: number; url: string }>>('window.__sources.map((s) => ({ readyState: s.readyState, url: s.url }))');
  const row = (page: Page, title: string) => page.getByRole('link', { name: title, exact: true });

  beforeAll(async () => {
    t = await startTestPlatform('pglite', { realtime: { ...DEFAULT_REALTIME_SETTINGS, retentionSeconds: RETENTION_SECONDS } });
    const tenant = await createTenant(t, 'Live lists');
    const app = await createTodoApp(tenant);
    await publishAndWait(t, tenant, app.id, app.serverVersion);
    const appPath = apiPath(t, app.id, app.serverVersion);
    appUrl = `${t.baseUrl}${appPath}`;
    const download = await downloadBundle(tenant, app.id);
    const files = Object.entries(unzipSync(download.bytes)).map(([path, data]) => ({ path, content: strFromU8(data) }));
    tap = await realtimeTap(t.baseUrl);
    site = await serveBundle(configure(files, appPath), tap.origin);
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => {});
    await browser?.close();
    await site?.close();
    await tap?.close();
    await t?.close();
  });

  it('shows to-dos created, changed and deleted through the API without a reload; another user sees only theirs', async () => {
    const ann = await signUp('Ann');
    const bob = await signUp('Bob');
    const annPage = await pageOf(ann);
    const bobPage = await pageOf(bob);
    await openList(annPage, '#/toDos');
    await openList(bobPage, '#/toDos');
    // The app's welcome action gives each new user a to-do, from the event queue: it may well arrive live.
    await row(annPage, 'Welcome, Ann! Add your first to-do.').waitFor({ timeout: 10_000 });
    await annPage.getByText('Showing 1–1 of 1').waitFor();
    // The stream goes to the app's realtime route with the session's token (EventSource cannot send a header).
    const [stream] = await sources(annPage);
    expect(new URL(stream.url).pathname).toMatch(/\/realtime$/);
    expect(new URL(stream.url).searchParams.get('subscribe')).toBe('toDos');
    expect(new URL(stream.url).searchParams.get('token')).toBe(ann.token);

    const title = `Live ${stamp}`;
    const todo = await call('POST', '/toDos', ann, { title, status: 'open' });
    await row(annPage, title).waitFor({ timeout: 10_000 });
    await annPage.getByText('Showing 1–2 of 2').waitFor();

    await call('PATCH', `/toDos/${todo.id}`, ann, { title: `${title} (changed)`, status: 'done' });
    await row(annPage, `${title} (changed)`).waitFor({ timeout: 10_000 });
    expect(await row(annPage, title).count()).toBe(0);
    await annPage.locator('tbody td', { hasText: 'done' }).waitFor();

    // Bob's open list takes in his own to-do, never Ann's.
    const bobs = `Bob's ${stamp}`;
    await call('POST', '/toDos', bob, { title: bobs, status: 'open' });
    await row(bobPage, bobs).waitFor({ timeout: 10_000 });
    expect(await row(bobPage, `${title} (changed)`).count()).toBe(0);
    expect(await row(annPage, bobs).count()).toBe(0);

    await call('DELETE', `/toDos/${todo.id}`, ann);
    await row(annPage, `${title} (changed)`).waitFor({ state: 'detached', timeout: 10_000 });
    await annPage.getByText('Showing 1–1 of 1').waitFor();
    // One stream each all along: no reload, no second subscription.
    expect((await sources(annPage)).map((s) => s.readyState)).toEqual([1]);
    expect(errors).toEqual([]);
  }, 120_000);

  it('re-fetches the page it shows: a filtered list takes in a record once it matches, and lets it go when it no longer does', async () => {
    const cleo = await signUp('Cleo');
    const page = await pageOf(cleo);
    await openList(page, `#/toDos?filter=${encodeURIComponent("record.status == 'done'")}`);
    await page.getByText('No records match this filter.').waitFor();
    const title = `Filtered ${stamp}`;
    const todo = await call('POST', '/toDos', cleo, { title, status: 'open' });
    const other = await call('POST', '/toDos', cleo, { title: `${title} other`, status: 'open' });
    await call('PATCH', `/toDos/${other.id}`, cleo, { title: `${title} other (2)` });
    // The open ones do not match: wait for the changes to have arrived (another list shows them), then check.
    const all = await pageOf(cleo);
    await openList(all, '#/toDos');
    await row(all, `${title} other (2)`).waitFor();
    expect(await row(page, title).count()).toBe(0);
    await call('PATCH', `/toDos/${todo.id}`, cleo, { status: 'done' });
    await row(page, title).waitFor({ timeout: 10_000 });
    await page.getByText('Showing 1–1 of 1').waitFor();
    await call('PATCH', `/toDos/${todo.id}`, cleo, { status: 'open' });
    await page.getByText('No records match this filter.').waitFor({ timeout: 10_000 });
    expect(errors).toEqual([]);
  }, 120_000);

  it('after a dropped stream, shows what changed meanwhile: replayed after Last-Event-ID, or fetched again on reset past the retention', async () => {
    const eve = await signUp('Eve');
    const page = await pageOf(eve);
    await openList(page, '#/toDos');
    // Quiet first (her welcome to-do arrived, no page fetch pending): what shows up later came from the stream.
    const idle = () => page.locator('.list-body[data-live="open"]:not([aria-busy])').waitFor({ timeout: 10_000 });
    await row(page, 'Welcome, Eve! Add your first to-do.').waitFor({ timeout: 10_000 });
    await idle();
    const title = `Resumed ${stamp}`;
    const todo = await call('POST', '/toDos', eve, { title, status: 'open' });
    await row(page, title).waitFor({ timeout: 10_000 });
    await idle();
    // Every open stream is cut (other tests' pages too): Eve's are told by her token.
    const evesStreams = () => tap.tapped.filter((entry) => new URL(entry.url, 'http://local').searchParams.get('token') === eve.token);
    expect(evesStreams()).toHaveLength(1);

    // Cut within the retention: the browser comes back with the last id it saw, and the server replays the change.
    tap.cut();
    await page.locator('.list-body[data-live="connecting"]').waitFor();
    await call('PATCH', `/toDos/${todo.id}`, eve, { title: `${title} (missed)` });
    await expect.poll(() => tap.held()).toBeGreaterThan(0);
    tap.release();
    await row(page, `${title} (missed)`).waitFor({ timeout: 10_000 });
    expect(evesStreams()).toHaveLength(2);
    const resumed = evesStreams()[1];
    expect(Number(resumed.lastEventId)).toBeGreaterThan(0);
    expect(resumed.text).toMatch(/event: update\n/);
    expect(resumed.text).not.toMatch(/event: reset/);

    // Cut, and come back past the retention: the server answers reset, and the list fetches its page again.
    await idle();
    tap.cut();
    await call('PATCH', `/toDos/${todo.id}`, eve, { title: `${title} (reset)` });
    await new Promise((resolve) => setTimeout(resolve, (RETENTION_SECONDS + 1) * 1000));
    await expect.poll(() => tap.held()).toBeGreaterThan(0);
    tap.release();
    await row(page, `${title} (reset)`).waitFor({ timeout: 10_000 });
    const reset = evesStreams()[2];
    expect(evesStreams()).toHaveLength(3);
    expect(reset.lastEventId).toBe(resumed.text.match(/^id: (\d+)$/m)?.[1]);
    expect(reset.text).toMatch(/event: reset\n/);
    expect(reset.text).not.toMatch(/event: update\n/);
    expect((await sources(page)).map((s) => s.readyState)).toEqual([1]);
    expect(errors).toEqual([]);
  }, 120_000);

  it('closes the stream when leaving the list, opens a new one on coming back; a signed-out visitor opens none', async () => {
    const dan = await signUp('Dan');
    const page = await pageOf(dan);
    await openList(page, '#/toDos');
    await page.getByRole('link', { name: 'New to do' }).click();
    await page.getByRole('button', { name: 'Create to do' }).waitFor();
    expect((await sources(page)).map((s) => s.readyState)).toEqual([2]);
    await page.goBack();
    await page.locator('.list-body[data-live="open"]').waitFor();
    expect((await sources(page)).map((s) => s.readyState)).toEqual([2, 1]);
    // Another page of the same list (a new sort) is a new subscription; the old one is closed.
    await page.locator('th a.sort').first().click();
    await page.waitForFunction('window.__sources.length === 3');
    await page.locator('.list-body[data-live="open"]').waitFor();
    expect((await sources(page)).map((s) => s.readyState)).toEqual([2, 2, 1]);

    const visitor = await pageOf(null);
    await visitor.goto(`${site.origin}/#/toDos`);
    await visitor.locator('.list-body, .message-error').first().waitFor();
    expect(await sources(visitor)).toEqual([]);
    expect(errors).toEqual([]);
  }, 120_000);
});
