/**
 * The generated frontend's file inputs in a real browser (playwright-core + Debian chromium)
 * against a published app whose to-dos have a photo (p_IMAGE) and attachments (p_FILE, many):
 * the form uploads the chosen files to POST /files and sends their keys; the detail page links
 * them, a click fetches the bytes with the session's token; saving again keeps them.
 *
 * Without /usr/bin/chromium the test skips on a developer machine and fails in CI (`CI` set).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unzipSync, strFromU8 } from 'fflate';
import type { Browser } from 'playwright-core';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp } from '../support/tenant.ts';
import { todoScode } from '../support/examples.ts';
import { chromiumMissing, configure, launchChromium, serveBundle, type StaticSite } from './browser-support.ts';
import { apiPath, downloadBundle, publishAndWait } from './published.ts';

const noChromium = chromiumMissing('file input test');

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a1c6d1e40000000049454e44ae426082', 'hex');
const field = (id: string, name: string, to: string, max: number | null) => ({ id, name, relationshipOwner: true, min: 0, max, to, accessControl: { rules: [] } });

function definition() {
  const scode = todoScode() as unknown as { models: Array<{ id: string; fields: unknown[] }> };
  scode.models
    .find((m) => m.id === 'urn:svc:model:todo')!
    .fields.push(field('urn:svc:edge:todo-photo', 'photo', 'p_IMAGE', 1), field('urn:svc:edge:todo-attachments', 'attachments', 'p_FILE', null));
  return scode;
}

describe.skipIf(noChromium)('file inputs of the generated frontend in chromium', () => {
  let t: TestPlatform;
  let site: StaticSite;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestPlatform('pglite');
    const tenant = await createTenant(t, 'Browser files');
    const app = await createTodoApp(tenant, definition());
    await publishAndWait(t, tenant, app.id, app.serverVersion);
    const download = await downloadBundle(tenant, app.id);
    const files = Object.entries(unzipSync(download.bytes)).map(([path, data]) => ({ path, content: strFromU8(data) }));
    // One origin for the pages and the API (the static server forwards /apps/).
    site = await serveBundle(configure(files, apiPath(t, app.id, app.serverVersion)), t.baseUrl);
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await t?.close();
  });

  it('uploads the chosen files with the form, links them on the record, and keeps them when saved again', async () => {
    const page = await browser.newPage({ acceptDownloads: true });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${site.origin}/`);
    await page.getByRole('link', { name: 'Sign up' }).first().click();
    await page.getByLabel('Name').fill('Ada');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByText('Signed in as Ada').waitFor();

    await page.getByRole('link', { name: 'New to do' }).click();
    await page.getByLabel('Title').fill('Frame the photo');
    expect(await page.locator('#f-photo').getAttribute('type')).toBe('file');
    expect(await page.locator('#f-attachments').evaluate((el) => (el as unknown as { multiple: boolean }).multiple)).toBe(true);
    await page.locator('#f-photo').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG });
    await page.locator('#f-attachments').setInputFiles([
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('frame: oak, 10x15') },
      { name: 'quote.txt', mimeType: 'text/plain', buffer: Buffer.from('42 EUR') },
    ]);
    await page.getByRole('button', { name: 'Create to do' }).click();
    await page.getByRole('heading', { name: 'Frame the photo' }).waitFor();

    const photo = page.locator('dd[data-field="photo"] a.file-link');
    expect(await photo.textContent()).toBe('dot.png');
    expect(await page.locator('dd[data-field="attachments"] a.file-link').allTextContents()).toEqual(['notes.txt', 'quote.txt']);
    // A click fetches the bytes with the session's token (the route answers 404 without it).
    const [saved] = await Promise.all([page.waitForEvent('download'), photo.click()]);
    expect(readFileSync((await saved.path())!).equals(PNG)).toBe(true);

    await page.getByRole('link', { name: 'Edit' }).click();
    await page.getByLabel('Title').fill('Frame the photo today');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('To do saved.').waitFor();
    await page.getByRole('heading', { name: 'Frame the photo today' }).waitFor();
    expect(await page.locator('dd[data-field="photo"] a.file-link').textContent()).toBe('dot.png');
    expect(await page.locator('dd[data-field="attachments"] a.file-link').allTextContents()).toEqual(['notes.txt', 'quote.txt']);
    expect(errors).toEqual([]);
  });
});
