/**
 * Support for the browser test: serve an unzipped bundle on a local origin that also
 * forwards `/apps/` to the platform (one origin, so the app needs no CORS), launch the
 * Debian chromium through playwright-core, and the to-do flow itself.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { BundleFile } from '../../src/frontend/bundle.ts';

export const CHROMIUM = '/usr/bin/chromium';
/**
 * Whether this machine lacks Chromium, for `describe.skipIf`: in CI that is an error (.ci/run
 * installs it), elsewhere a printed reason for the skip.
 */
export function chromiumMissing(testName: string): boolean {
  if (existsSync(CHROMIUM)) return false;
  if (process.env.CI) throw new Error(`${CHROMIUM} is missing in CI: .ci/run installs it (apt-get install -y chromium).`);
  console.warn(`[${testName}] skipped here: ${CHROMIUM} is missing (apt-get install -y chromium); CI runs it.`);
  return true;
}

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const ARTIFACTS = join(process.cwd(), 'test-artifacts');

const TYPES: Record<string, string> = { html: 'text/html', js: 'text/javascript', css: 'text/css', md: 'text/markdown', json: 'application/json' };

export interface StaticSite {
  origin: string;
  close(): Promise<void>;
}

/** Serves `files`; requests under `/apps/` are forwarded to `apiOrigin` as they are. */
export async function serveBundle(files: BundleFile[], apiOrigin: string): Promise<StaticSite> {
  const byPath = new Map(files.map((f) => [`/${f.path}`, f]));
  const api = new URL(apiOrigin);
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://local');
    if (url.pathname.startsWith('/apps/')) {
      const upstream = httpRequest({ host: api.hostname, port: api.port, method: req.method, path: req.url, headers: { ...req.headers, host: api.host } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', (error) => res.writeHead(502).end(String(error)));
      req.pipe(upstream);
      return;
    }
    const file = byPath.get(url.pathname === '/' ? '/index.html' : url.pathname);
    if (!file) return void res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-type': `${TYPES[file.path.split('.').pop() ?? ''] ?? 'application/octet-stream'}; charset=utf-8` }).end(file.content);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Sets `API_BASE_URL` in config.js: the one place a bundle is configured. */
export function configure(files: BundleFile[], apiBaseUrl: string): BundleFile[] {
  return files.map((f) => (f.path === 'config.js' ? { ...f, content: f.content.replace(/^export const API_BASE_URL = .*;$/m, `export const API_BASE_URL = ${JSON.stringify(apiBaseUrl)};`) } : f));
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `frontend-${name}.png`), fullPage: true });
}

async function signUp(page: Page, name: string, email: string, password: string): Promise<void> {
  await page.getByRole('link', { name: 'Sign up' }).first().click();
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.getByText(`Signed in as ${name}`).waitFor();
}

async function logOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByRole('heading', { name: 'Log in' }).waitFor();
}

/** Opens the edit form of the record on screen, changes it, saves and waits for the detail page. */
async function edit(page: Page, change: (page: Page) => Promise<void>): Promise<void> {
  await page.getByRole('link', { name: 'Edit' }).click();
  await page.getByRole('button', { name: 'Save changes' }).waitFor();
  await change(page);
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('To do saved.').waitFor();
}

/**
 * The to-do flow: sign up, create a to-do, see it in the list, edit it, mark it done,
 * check that a second user does not see it, log back in and delete it.
 */
export async function todoFlow(page: Page, origin: string, log: (line: string) => void = () => {}): Promise<void> {
  const stamp = Date.now().toString(36);
  const first = { name: 'Ada', email: `ada-${stamp}@example.com`, password: 'correct horse battery' };
  const title = `Buy oat milk ${stamp}`;
  const dialogs: string[] = [];
  page.on('pageerror', (error) => log(`page error: ${error.message}`));

  await page.goto(`${origin}/`);
  await page.getByRole('heading', { name: 'To dos' }).waitFor();
  await shot(page, '01-anonymous');

  await signUp(page, first.name, first.email, first.password);
  log('signed up');
  await page.getByRole('link', { name: 'New to do' }).click();
  await page.getByLabel('Title').fill(title);
  await page.getByLabel('Description').fill('The unsweetened one.');
  await page.getByLabel('Deadline').fill('2030-01-31T17:00');
  // The user picker is loaded from /users and starts at the signed-in user.
  await page.locator('#f-user option', { hasText: first.name }).waitFor({ state: 'attached' });
  await shot(page, '02-new-todo');
  await page.getByRole('button', { name: 'Create to do' }).click();
  await page.getByRole('heading', { name: title }).waitFor();
  log('created');

  await page.getByRole('link', { name: 'My to-dos' }).click();
  await page.getByRole('link', { name: title }).waitFor();
  await shot(page, '03-list');
  await page.getByRole('link', { name: title }).click();
  await page.getByRole('heading', { name: title }).waitFor();

  await edit(page, (p) => p.getByLabel('Title').fill(`${title} (2 l)`));
  await page.getByRole('heading', { name: `${title} (2 l)` }).waitFor();
  log('edited');
  await edit(page, async (p) => {
    await p.getByLabel('Status').selectOption('done');
  });
  await page.locator('dd[data-field="status"]', { hasText: 'done' }).waitFor();
  await shot(page, '04-done');
  log('marked done');

  await logOut(page);
  await signUp(page, 'Grace', `grace-${stamp}@example.com`, 'another long password');
  await page.goto(`${origin}/#/toDos`);
  await page.getByText(/Showing \d+–\d+ of \d+/).waitFor();
  if ((await page.getByRole('link', { name: `${title} (2 l)` }).count()) !== 0) throw new Error('A second user sees the first user’s to-do.');
  await shot(page, '05-second-user');
  log('second user does not see it');

  await logOut(page);
  await page.getByLabel('Email').fill(first.email);
  await page.getByLabel('Password').fill(first.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByText(`Signed in as ${first.name}`).waitFor();
  await page.getByRole('link', { name: `${title} (2 l)` }).click();
  await page.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  dialogs.push((await dialog.textContent()) ?? '');
  await shot(page, '06-confirm-delete');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await page.getByText('To do deleted.').waitFor();
  await page.getByText(/Showing \d+–\d+ of \d+/).waitFor();
  if ((await page.getByRole('link', { name: `${title} (2 l)` }).count()) !== 0) throw new Error('The deleted to-do is still listed.');
  await shot(page, '07-deleted');
  log(`deleted (confirmation: ${dialogs[0]?.trim()})`);
}
