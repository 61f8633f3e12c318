// The console on an app built from a real SQL dump with its data (Chinook for MySQL: upload →
// specification → apply with publish and import): the models overview shows every model with its
// fields' types in words and its relationships; the data browser lists a track's album by its title
// (not a uuid); a new album's artist is picked by typing part of its name ("AC/D" → AC/DC) and the
// list then shows "AC/DC". The filter and sort hints are the collection's own. axe-core finds no
// serious or critical violation, a 375 px screen does not scroll sideways, and the models overview
// and the data browser with the picker are captured for docs/console.md.
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../frontend/browser-support.ts';
import { BOOTSTRAP, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { ApiClient } from '../support/client.ts';
import { specificationFrom } from '../specifications/support.ts';
import { applyWithData } from '../imports/support.ts';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const SCREENSHOTS = join(process.cwd(), 'docs', 'screenshots');

async function seriousViolations(page: Page): Promise<string[]> {
  await page.waitForLoadState('networkidle');
  if (!(await page.evaluate<boolean>(`'axe' in window`))) await page.addScriptTag({ path: AXE });
  const result = await page.evaluate<{ violations: Array<{ id: string; impact: string | null; help: string }> }>(`window.axe.run(document)`);
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
}

const overflowOf = (page: Page) => page.evaluate<number>(`document.documentElement.scrollWidth - document.documentElement.clientWidth`);

describe('the console on Chinook with its data', () => {
  let t: TestPlatform;
  let browser: Browser;
  let page: Page;
  let base = '';
  const errors: string[] = [];

  beforeAll(async () => {
    t = await startTestPlatform('pglite');
    const admin = await ApiClient.login(t.baseUrl, { apiKey: BOOTSTRAP.id, secret: BOOTSTRAP.secret });
    const credentials = (await admin.post<{ apiClient: { apiKey: string; secret: string } }>('/v1/customers', { name: 'Console music' })).body.apiClient;
    const api = await ApiClient.login(t.baseUrl, credentials);
    const projectId = (await api.post<{ id: string }>('/v1/projects', { name: 'Music' })).body.id;
    const spec = await specificationFrom(api, projectId, ['sql/chinook-mysql.sql']);
    if (spec.status !== 'succeeded') throw new Error(`the specification ${spec.status}: ${spec.errorMessage}`);
    const { app, report } = await applyWithData({ api, projectId }, spec.id, { name: 'Chinook' });
    if (report.status !== 'succeeded') throw new Error(`the import ${report.status}`);
    base = `${t.baseUrl}/console#/projects/${projectId}/applications/${app.id}`;

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    page = await context.newPage();
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${t.baseUrl}/console`);
    await page.getByLabel('API key').fill(credentials.apiKey);
    await page.getByLabel('Secret').fill(credentials.secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Projects' }).waitFor();
    mkdirSync(SCREENSHOTS, { recursive: true });
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows every model with its field types in words and its relationships, and opens one in the editor', async () => {
    await page.goto(`${base}/models`);
    const overview = page.locator('.models-overview');
    await overview.waitFor();
    expect(await overview.locator('caption').textContent()).toMatch(/^10 models, \d+ relationships$/);
    const trackRow = overview.locator('tr').filter({ has: page.locator('th').getByRole('button', { name: 'Track', exact: true }) });
    const track = (await trackRow.textContent())!;
    expect(track).toMatch(/album → Album/);
    expect(track).toMatch(/genre → Genre/);
    expect(track).toMatch(/name: Text/);
    expect(await overview.textContent()).not.toMatch(/p_[A-Z]/);
    await page.screenshot({ path: join(SCREENSHOTS, 'console-models-overview.png') });
    expect(await seriousViolations(page)).toEqual([]);
    await trackRow.locator('th').getByRole('button', { name: 'Track', exact: true }).click();
    await page.locator('section[aria-label="Model Track"]').waitFor();
    // the type select shows words
    const albumRow = page.locator('form[aria-label="Field album of Track"]');
    expect(await albumRow.locator('select[name="to"] option:checked').textContent()).toBe('→ Album');
    const nameRow = page.locator('form[aria-label="Field name of Track"]');
    expect(await nameRow.locator('select[name="to"] option:checked').textContent()).toBe('Text');
    expect(errors).toEqual([]);
  }, 180_000);

  it('lists related records by their display value and picks one by typing its name', async () => {
    await page.goto(`${base}/data`);
    await page.getByLabel('Collection').selectOption('tracks');
    await page.getByRole('cell', { name: 'For Those About To Rock We Salute You', exact: true }).first().waitFor();
    // per-collection hints: the track's own fields
    expect(await page.locator('input[name="filter"]').getAttribute('placeholder')).toBe('record.name.contains("…")');
    expect(await page.locator('input[name="sort"]').getAttribute('placeholder')).toMatch(/^-\w+,name$/);

    await page.getByLabel('Collection').selectOption('albums');
    await page.getByRole('button', { name: 'New record' }).click();
    const form = page.locator('form[aria-label="Create the record"]');
    await form.getByLabel('title', { exact: true }).fill('Live at Donington');
    await form.getByLabel(/^artist/).fill('AC/D');
    await form.getByRole('button', { name: 'AC/DC', exact: true }).click();
    await form.getByText('Picked: AC/DC').waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'console-data-relation-picker.png') });
    expect(await seriousViolations(page)).toEqual([]);
    const created = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname.endsWith('/albums'));
    await form.getByRole('button', { name: 'Create the record' }).click();
    expect((await created).status()).toBe(201);
    // the new album, found by its title, shows its artist's name
    await page.locator('input[name="filter"]').fill('record.title == "Live at Donington"');
    await page.getByRole('button', { name: 'Apply' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Live at Donington' });
    await row.waitFor();
    expect(await row.getByRole('cell', { name: 'AC/DC', exact: true }).count()).toBe(1);
    expect(errors).toEqual([]);
  }, 180_000);

  it('fits a 375 px wide screen: the overview and the data browser', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    for (const tab of ['models', 'data']) {
      await page.goto(`${base}/${tab}`);
      await page.getByRole('heading', { level: 2 }).first().waitFor();
      await page.waitForLoadState('networkidle');
      expect(await overflowOf(page), tab).toBeLessThanOrEqual(0);
      expect(await seriousViolations(page), tab).toEqual([]);
    }
  }, 120_000);
});
