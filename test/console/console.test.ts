// The builder console end to end (issue 20), in Debian's Chromium on the embedded default:
// sign in → new project → upload a SQL schema (Pagila, a public fixture) → generate and apply
// the specification → publish and watch it finish → create a record in the data browser → ask
// the assistant to add a field → apply → the new version appears → create a viewer builder and
// a token → sign in with it and see that editing is disabled. Every page visited is checked with
// axe-core (no serious or critical violations), and three pages are captured for the README.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../frontend/browser-support.ts';
import { BOOTSTRAP, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { ApiClient } from '../support/client.ts';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const SCREENSHOTS = join(process.cwd(), 'docs', 'screenshots');
const SQL = join(process.cwd(), 'test', 'fixtures', 'sql', 'pagila-schema.sql');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** Runs axe-core on the page as it is; answers the serious and critical violations. */
async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Browser-side code as text: the project compiles without DOM types.
  if (!(await page.evaluate<boolean>(`'axe' in window`))) await page.addScriptTag({ path: AXE });
  const result = await page.evaluate<{ violations: AxeViolation[] }>(`window.axe.run(document)`);
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

describe('the builder console in Chromium', () => {
  let t: TestPlatform;
  let browser: Browser;
  let page: Page;
  let credentials: { apiKey: string; secret: string };
  const errors: string[] = [];
  const checked: Record<string, AxeViolation[]> = {};

  /** Opens one model's editor from the models overview. */
  async function openModel(name: string): Promise<void> {
    await page.locator('.models-overview th').getByRole('button', { name, exact: true }).click();
    await page.locator(`section[aria-label="Model ${name}"]`).waitFor();
  }

  async function axeCheck(name: string): Promise<void> {
    await page.waitForLoadState('networkidle');
    checked[name] = await seriousViolations(page);
  }

  beforeAll(async () => {
    t = await startTestPlatform('pglite');
    const admin = await ApiClient.login(t.baseUrl, { apiKey: BOOTSTRAP.id, secret: BOOTSTRAP.secret });
    const customer = await admin.post<{ apiClient: { apiKey: string; secret: string } }>('/v1/customers', { name: 'Console' });
    credentials = customer.body.apiClient;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    // axe is injected by the test: the console's CSP rightly refuses scripts it did not name.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    page = await context.newPage();
    page.on('pageerror', (error) => errors.push(String(error)));
    page.on('dialog', (dialog) => void dialog.accept());
    mkdirSync(SCREENSHOTS, { recursive: true });
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('serves the console from the service itself, with a CSP naming only its own origin', async () => {
    const reply = await fetch(`${t.baseUrl}/console`);
    expect(reply.status).toBe(200);
    const csp = reply.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toMatch(/https?:/);
    const html = await reply.text();
    expect(html).not.toMatch(/src="https?:|href="https?:/);
    for (const asset of ['/console/vendor/preact.js', '/console/vendor/hooks.js', '/console/vendor/htm.js', '/console/assets/main.js', '/console/assets/styles.css']) {
      expect((await fetch(`${t.baseUrl}${asset}`)).status, asset).toBe(200);
    }
    expect((await fetch(`${t.baseUrl}/console/assets/../plugin.ts`)).status).toBe(404);
    expect((await fetch(`${t.baseUrl}/console/vendor/fs.js`)).status).toBe(404);
  });

  it('walks from a SQL schema to a running app, changes it through the assistant, and hands a viewer a token', async () => {
    await page.goto(`${t.baseUrl}/console`);
    await page.getByLabel('API key').fill(credentials.apiKey);
    await page.getByLabel('Secret').fill('wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/.+/);
    await axeCheck('sign-in');
    await page.getByLabel('Secret').fill(credentials.secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    await axeCheck('projects');

    await page.getByLabel('New project name').fill('Rentals');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Rentals' }).waitFor();
    await axeCheck('project');
    await page.getByRole('link', { name: 'Figma', exact: true }).click();
    await page.getByRole('heading', { name: 'Figma imports' }).waitFor();
    await axeCheck('figma');

    await page.getByRole('link', { name: 'Documents' }).click();
    await page.locator('input[type=file]').setInputFiles(SQL);
    await page.getByRole('cell', { name: 'pagila-schema.sql', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Generate a specification' }).click();
    await page.getByRole('button', { name: 'Apply as a new application' }).waitFor({ timeout: 60_000 });
    expect(await page.locator('.provenance').first().textContent()).toContain('From');
    await axeCheck('documents');
    await page.screenshot({ path: join(SCREENSHOTS, 'console-specification.png') });
    await page.getByLabel('Application name').fill('Rentals app');
    await page.getByRole('button', { name: 'Apply as a new application' }).click();
    await page.getByRole('heading', { name: /Rentals app/ }).waitFor();
    // The overview: every model on one screen, field types in words, relationships with their targets.
    const overview = page.locator('.models-overview');
    await overview.waitFor();
    expect(await overview.locator('caption').textContent()).toMatch(/^\d+ models, \d+ relationships$/);
    const filmRow = overview.locator('tr').filter({ has: page.locator('th').getByRole('button', { name: 'Film', exact: true }) });
    expect(await filmRow.textContent()).toMatch(/language → Language/);
    expect(await filmRow.textContent()).toMatch(/title: Text/);
    expect(await overview.textContent()).not.toMatch(/p_[A-Z]/);
    await axeCheck('models');
    await page.screenshot({ path: join(SCREENSHOTS, 'console-models.png') });
    await openModel('Actor');
    expect(await page.locator('section[aria-label="Model Actor"] select[name="to"]').first().locator('option:checked').textContent()).not.toMatch(/^p_/);

    // A rename that clashes: the 409/400 is shown at the field it names.
    const actor = page.locator('section[aria-label="Model Actor"]');
    const firstRow = actor.locator('form.field-row').first();
    const secondName = await actor.locator('form.field-row').nth(1).getByLabel('Name').inputValue();
    await firstRow.getByLabel('Name').fill(secondName);
    await firstRow.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => firstRow.locator('.field-error, .problem').count()).toBeGreaterThan(0);

    for (const tab of ['Access rules', 'Actions', 'Triggers', 'Runs', 'Variables & secrets']) {
      await page.getByRole('link', { name: tab, exact: true }).click();
      await page.getByRole('heading', { level: 2 }).first().waitFor();
      await axeCheck(tab);
    }

    await page.getByRole('link', { name: 'Publish', exact: true }).click();
    await page.getByRole('button', { name: /^Publish v/ }).click();
    await page.locator('.status.active').first().waitFor({ timeout: 60_000 });
    // The application's own origin, where a browser opens it (never the console's).
    expect(await page.locator('a.app-url').getAttribute('href')).toMatch(/^http:\/\/[0-9a-f-]{36}\.localhost:\d+$/);
    await axeCheck('publish');

    await page.getByRole('link', { name: 'Data', exact: true }).click();
    await page.getByLabel('Collection').selectOption('actors');
    await page.getByRole('button', { name: 'New record' }).click();
    const form = page.locator('form[aria-label="Create the record"]');
    await form.getByLabel('firstName', { exact: true }).fill('Penelope');
    await form.getByLabel('lastName', { exact: true }).fill('Guiness');
    await form.getByRole('button', { name: 'Create the record' }).click();
    await page.getByRole('cell', { name: 'Penelope', exact: true }).waitFor();
    await axeCheck('data');

    // Unique values from the model editor: last names become unique, and once that version is
    // published a second actor with the same last name is refused with a 409.
    await page.getByRole('link', { name: 'Models', exact: true }).click();
    await openModel('Actor');
    const unique = page.locator('form[aria-label="Unique values of Actor"]');
    await unique.getByLabel('lastName', { exact: true }).check();
    const beforeUnique = await page.locator('.version').textContent();
    await unique.getByRole('button', { name: 'Make unique' }).click();
    await expect.poll(() => page.locator('.version').textContent()).not.toBe(beforeUnique);
    await unique.locator('ul.indexes').getByText('lastName', { exact: true }).waitFor();
    await axeCheck('unique values');
    // The model editor, unique values included, fits a 375 px wide screen too.
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await page.evaluate<number>(`document.documentElement.scrollWidth - document.documentElement.clientWidth`)).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1280, height: 900 });
    const uniqueVersion = (await page.locator('.version').textContent())!.trim();
    await page.getByRole('link', { name: 'Publish', exact: true }).click();
    await page.getByRole('button', { name: `Publish ${uniqueVersion}` }).click();
    await page.getByRole('row').filter({ hasText: uniqueVersion }).locator('.status.active').waitFor({ timeout: 60_000 });
    await page.getByRole('link', { name: 'Data', exact: true }).click();
    await page.getByLabel('Collection').selectOption('actors');
    await page.getByRole('button', { name: 'New record' }).click();
    const duplicate = page.locator('form[aria-label="Create the record"]');
    await duplicate.getByLabel('firstName', { exact: true }).fill('Paula');
    await duplicate.getByLabel('lastName', { exact: true }).fill('Guiness');
    const refused = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname.endsWith('/actors'));
    await duplicate.getByRole('button', { name: 'Create the record' }).click();
    expect((await refused).status()).toBe(409);
    // Shown at the field the problem names.
    await expect.poll(() => duplicate.locator('.field-error').allTextContents()).toEqual([expect.stringContaining('must be unique')]);
    expect(await page.getByRole('cell', { name: 'Paula', exact: true }).count()).toBe(0);

    await page.getByRole('link', { name: 'Assistant', exact: true }).click();
    await page.getByLabel('Your request').fill('Add a nickname to actors');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.getByRole('button', { name: 'Apply' }).waitFor();
    await axeCheck('assistant');
    await page.screenshot({ path: join(SCREENSHOTS, 'console-assistant.png') });
    const before = await page.locator('.version').textContent();
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.locator('.version').textContent()).not.toBe(before);

    await page.getByRole('link', { name: 'Versions', exact: true }).click();
    const newest = (await page.locator('.version').textContent())!.trim();
    await page.locator('ol.versions li').first().getByText(newest).waitFor();
    await page.getByRole('button', { name: 'Show the changes' }).click();
    expect(await page.locator('section[aria-label="Changes"]').textContent()).toContain('nickname');
    await axeCheck('versions');

    for (const [link, name] of [['Storage', 'storage'], ['Audit log', 'audit']] as const) {
      await page.getByRole('link', { name: link }).click();
      await page.getByRole('heading', { name: link }).waitFor();
      await axeCheck(name);
    }
    await page.getByRole('link', { name: 'Builders' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Vera Viewer');
    await page.getByLabel('Email').fill('vera@example.com');
    await page.getByLabel('Role').selectOption('viewer');
    await page.getByRole('button', { name: 'Add builder' }).click();
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.getByLabel('The new token').textContent())!.trim();
    expect(token.length).toBeGreaterThan(20);
    await axeCheck('builders');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('A builder token').check();
    await page.getByLabel('API key').fill(credentials.apiKey);
    await page.getByLabel('Builder token', { exact: true }).fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('.role[data-role="viewer"]').waitFor();
    expect(await page.getByLabel('New project name').count()).toBe(0);
    await page.getByRole('link', { name: 'Rentals', exact: true }).click();
    await page.getByRole('link', { name: /Rentals app/ }).click();
    await page.getByRole('note').filter({ hasText: 'viewer' }).waitFor();
    await openModel('Actor');
    expect(await page.locator('section[aria-label="Model Actor"] fieldset').first().getAttribute('disabled')).not.toBeNull();
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Publish', exact: true }).click();
    expect(await page.getByRole('button', { name: /^Publish v/ }).count()).toBe(0);
    // The data page reads the app's records with the viewer's token (a read is allowed) and offers no change.
    await page.getByRole('link', { name: 'Data', exact: true }).click();
    await page.getByLabel('Collection').selectOption('actors');
    await page.getByRole('cell', { name: 'Penelope', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'New record' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Edit' }).count()).toBe(0);
    await axeCheck('viewer');

    expect(errors).toEqual([]);
    for (const [name, violations] of Object.entries(checked)) {
      expect(violations.map((v) => `${name}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    }
    console.log(`axe-core: ${Object.keys(checked).length} pages checked, no serious or critical violations`);
  }, 300_000);

  it('fits a 375 px wide screen without sideways scrolling', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(`${t.baseUrl}/console#/projects`);
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    const overflow = await page.evaluate<number>(`document.documentElement.scrollWidth - document.documentElement.clientWidth`);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);
});
