/**
 * The generated frontend in a real browser (playwright-core + Debian chromium)
 * against a published to-do app on the real server: the bundle is downloaded as a
 * zip through spec endpoint 8, unzipped and served; then sign up, create a to-do,
 * see it in the list, edit it, mark it done, a second user does not see it, delete
 * it. Screenshots go to test-artifacts/.
 *
 * Without /usr/bin/chromium the test skips on a developer machine and fails in CI
 * (`CI` set), where .ci/run installs it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unzipSync, strFromU8 } from 'fflate';
import type { Browser } from 'playwright-core';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp } from '../support/tenant.ts';
import type { BundleFile } from '../../src/frontend/bundle.ts';
import { chromiumMissing, configure, launchChromium, serveBundle, todoFlow, type StaticSite } from './browser-support.ts';
import { apiPath, downloadBundle, publishAndWait } from './published.ts';

const noChromium = chromiumMissing('browser test');

describe.skipIf(noChromium)('generated frontend in chromium', () => {
  let t: TestPlatform;
  let site: StaticSite;
  let browser: Browser;
  let files: BundleFile[];
  let appPath: string;
  let appUrl: string;
  let filename: string | null;

  beforeAll(async () => {
    t = await startTestPlatform('pglite');
    const tenant = await createTenant(t, 'Browser');
    const app = await createTodoApp(tenant);
    await publishAndWait(t, tenant, app.id, app.serverVersion);
    appPath = apiPath(t, app.id, app.serverVersion);
    appUrl = `${t.baseUrl}${appPath}`;

    const download = await downloadBundle(tenant, app.id);
    expect(download.headers.get('content-type')).toBe('application/zip');
    filename = download.headers.get('content-disposition');
    files = Object.entries(unzipSync(download.bytes)).map(([path, data]) => ({ path, content: strFromU8(data) }));
    // One origin for the pages and the API (the static server forwards /apps/): config.js is the one setting.
    site = await serveBundle(configure(files, appPath), t.baseUrl);
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await t?.close();
  });

  it('downloads the zip of the published version, configured for its API', () => {
    expect(filename).toBe('attachment; filename="to-do-1.0.1.zip"');
    expect(files.map((f) => f.path)).toEqual(expect.arrayContaining(['index.html', 'config.js', 'schema.js', 'app.js', 'styles.css']));
    const config = files.find((f) => f.path === 'config.js')!.content;
    expect(config.split('\n')[0]).toBe(`export const API_BASE_URL = ${JSON.stringify(appUrl)};`);
    expect(files.find((f) => f.path === 'index.html')!.content).toContain('<title>To-do</title>');
  });

  it('signs up, creates, lists, edits, completes and deletes a to-do; a second user does not see it', async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await todoFlow(page, site.origin, (line) => console.log(`[browser test] ${line}`));
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
