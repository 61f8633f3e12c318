// The console's access rules tab and publish page in Chromium: the access matrix beside the rules
// editor, a rule template writing the CEL, the "try as…" box explaining a request as an end user,
// and the publish advice; axe-core finds no serious or critical violation, and a 375 px screen
// does not scroll sideways.
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../frontend/browser-support.ts';
import { BOOTSTRAP, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { ApiClient } from '../support/client.ts';
import { createTodoApp } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type Rec } from '../runtime/served-app.ts';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const SCREENSHOTS = join(process.cwd(), 'docs', 'screenshots');

async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate<boolean>(`'axe' in window`))) await page.addScriptTag({ path: AXE });
  const result = await page.evaluate<{ violations: Array<{ id: string; impact: string | null; help: string }> }>(`window.axe.run(document)`);
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
}

describe('the console explains and advises', () => {
  let t: TestPlatform;
  let browser: Browser;
  let page: Page;
  let base = '';
  let ann: { token: string; user: Rec };
  let todo: Rec;
  const errors: string[] = [];

  beforeAll(async () => {
    t = await startTestPlatform('pglite');
    const admin = await ApiClient.login(t.baseUrl, { apiKey: BOOTSTRAP.id, secret: BOOTSTRAP.secret });
    const credentials = (await admin.post<{ apiClient: { apiKey: string; secret: string } }>('/v1/customers', { name: 'Console advisor' })).body.apiClient;
    const api = await ApiClient.login(t.baseUrl, credentials);
    const projectId = (await api.post<{ id: string }>('/v1/projects', { name: 'Advised' })).body.id;
    const tenant = { api, projectId };
    const app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, app.id);
    const served = new ServedApi(t, tenant, app.id, app.serverVersion);
    ann = await served.signup('Ann', 'ann@example.test');
    todo = (await served.post('/toDos', { title: 'Mine', user: ann.user.id }, 'admin')).body;
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
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows the matrix beside the rules, writes a template, and tries a request as an end user', async () => {
    await page.goto(`${base}/rules`);
    await page.getByRole('heading', { name: 'Access rules' }).waitFor();
    const matrix = page.getByRole('table', { name: 'Who may do what: ToDo (owner: user)' });
    await matrix.waitFor();
    expect(await matrix.textContent()).toContain('when record.user == auth.id');
    expect(await page.locator('.advice-none').textContent()).toContain('No advice');

    const editor = page.getByLabel('Rules of ToDo (JSON)');
    await page.getByRole('group', { name: 'Rule templates for ToDo' }).getByRole('button', { name: 'Signed-in read' }).click();
    expect(await editor.inputValue()).toContain("auth != null && operation == 'read'");
    await page.getByRole('group', { name: 'Rule templates for ToDo' }).getByRole('button', { name: 'Owner only' }).click();
    expect(JSON.parse(await editor.inputValue())).toEqual({ rules: [{ access: 'allow', criteria: 'auth != null && record.user == auth.id' }], defaultAccess: 'deny' });

    await page.getByLabel('As (a user id, or anonymous)').fill(ann.user.id);
    await page.getByLabel('Path').fill(`/toDos/${todo.id}`);
    await page.getByRole('button', { name: 'Explain' }).click();
    const explanation = page.locator('.explanation');
    await explanation.waitFor();
    expect(await explanation.textContent()).toMatch(/allow · status 200 · rows 1 visible, 0 hidden/);
    expect(await explanation.textContent()).toContain('ToDo read rule 0: auth != null && record.user == auth.id');
    // the rules page with the matrix and an explanation, for docs/console.md
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, 'console-rules-matrix.png') });
    await page.getByLabel('As (a user id, or anonymous)').fill('anonymous');
    await page.getByRole('button', { name: 'Explain' }).click();
    await expect.poll(() => explanation.textContent()).toMatch(/deny · status 404/);
    await page.waitForLoadState('networkidle');
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  }, 120_000);

  it('shows the advice on the publish page', async () => {
    await page.goto(`${base}/publish`);
    await page.getByRole('heading', { name: /Advice for v/ }).waitFor();
    await expect.poll(() => page.getByRole('region', { name: 'Publish advice' }).textContent()).toContain('No advice');
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);

  it('fits a 375 px wide screen without sideways scrolling', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(`${base}/rules`);
    await page.getByRole('table', { name: 'Who may do what: ToDo (owner: user)' }).waitFor();
    const overflow = await page.evaluate<number>(`document.documentElement.scrollWidth - document.documentElement.clientWidth`);
    if (overflow > 0) console.log(await page.evaluate<string>(`[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).slice(0, 15).join('\\n')`));
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);
});
