// Issue 25 (Deliver 5): the pages of the account mails in the generated frontend, in chromium,
// against a real SMTP server started here. The bundle is served on its own origin (the API
// forwarded under /apps/), and the app's FRONTEND_URL variable points the mails' links at it:
// forgot password → the mail → its link → a new password → log in with it; a verification mail's
// link verifies the address; a used link says so; an app that logs in only verified addresses
// offers a new mail on the log-in page; the link of an email change confirms the new address.
import { unzipSync, strFromU8 } from 'fflate';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, configure, launchChromium, serveBundle, type StaticSite } from '../frontend/browser-support.ts';
import { apiPath, downloadBundle } from '../frontend/published.ts';
import { allowLoopbackMail, TestSmtpServer, linkToken } from './email-server.ts';
import { login, startAccountsApp, type AccountsApp, type SessionBody } from './sessions-app.ts';

const noChromium = chromiumMissing('mail frontend test');

describe.skipIf(noChromium)('the account mails in the generated frontend', () => {
  let a: AccountsApp;
  let smtp: TestSmtpServer;
  let restoreAllow: (() => void) | undefined;
  let site: StaticSite;
  let browser: Browser;
  const me = (token: string) => a.api.get<SessionBody['user']>('/auth/me', token);

  beforeAll(async () => {
    restoreAllow = allowLoopbackMail();
    smtp = await TestSmtpServer.start();
    a = await startAccountsApp('pglite', { accountPerMinute: 100 });
    const { applicationId, serverVersion } = a.api;
    const files = Object.entries(unzipSync((await downloadBundle(a.tenant, applicationId)).bytes)).map(([path, data]) => ({ path, content: strFromU8(data) }));
    site = await serveBundle(configure(files, apiPath(a.t, applicationId, serverVersion)), a.t.baseUrl);
    await a.setValue('SMTP_URL', smtp.url, 'secrets');
    await a.setValue('FRONTEND_URL', `${site.origin}/`);
    for (const name of ['Bob', 'Cid']) await a.api.signup(name, `${name.toLowerCase()}@example.test`);
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await a?.t.close();
    await smtp?.close();
    restoreAllow?.();
  });

  /** A page in a fresh browser context (its own localStorage), collecting script errors. */
  async function open(path: string): Promise<{ page: Page; errors: string[] }> {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${site.origin}/${path}`);
    return { page, errors };
  }

  async function logIn(page: Page, email: string, password: string): Promise<void> {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
  }

  const message = (page: Page) => page.locator('#messages');

  it('resets a forgotten password from the log-in page through the mail, then logs in with the new one', async () => {
    const before = await login(a.api, 'bob@example.test');
    const { page, errors } = await open('#/login');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { name: 'Forgot your password?' }).waitFor();
    await page.getByLabel('Email').fill('bob@example.test');
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByRole('heading', { name: 'Check your mail' }).waitFor();
    const known = await message(page).innerText();
    expect(known).toContain('If an account exists for bob@example.test');

    // An address without an account gets the same words.
    await page.getByRole('button', { name: 'ask again' }).click();
    await page.getByLabel('Email').fill('nobody@example.test');
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByText('If an account exists for nobody@example.test').waitFor();
    expect((await message(page).innerText()).replace('nobody@', 'bob@')).toBe(known);

    const mail = await smtp.next('bob@example.test');
    const { link } = linkToken(mail, 'reset-password');
    expect(link.startsWith(`${site.origin}/#/reset-password?token=`)).toBe(true);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    // The token left the address bar at once.
    expect(page.url()).toBe(`${site.origin}/#/reset-password`);

    await page.getByLabel(/^New password/).fill('a new password');
    await page.getByLabel('Repeat the new password').fill('a new passwort');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await expect.poll(() => page.locator('#e-repeat').innerText()).toContain('is not the same');
    expect(await page.getByLabel('Repeat the new password').getAttribute('aria-invalid')).toBe('true');
    // Nothing was sent: the old password still works.
    expect((await a.api.post('/auth/login', { email: 'bob@example.test', password: 'correct horse' })).status).toBe(200);

    await page.getByLabel('Repeat the new password').fill('a new password');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await page.getByText('Your password is changed: log in with the new one.').waitFor();
    expect((await a.api.post('/auth/login', { email: 'bob@example.test', password: 'correct horse' })).status).toBe(401);
    expect((await me(before.token)).status).toBe(401);

    await logIn(page, 'bob@example.test', 'a new password');
    await page.getByText('Signed in as Bob').waitFor();

    // The link works once: a second use shows why and where to get a new one.
    await page.goto(link);
    await page.getByLabel(/^New password/).fill('yet another password');
    await page.getByLabel('Repeat the new password').fill('yet another password');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByRole('heading', { name: 'This link does not work any more' }).waitFor();
    expect(await page.getByRole('alert').innerText()).toMatch(/already used/);
    expect(await page.getByRole('link', { name: 'Ask for a new link' }).getAttribute('href')).toBe('#/forgot-password');
    expect((await a.api.post('/auth/login', { email: 'bob@example.test', password: 'a new password' })).status).toBe(200);
    expect(smtp.count('nobody@example.test')).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('signs up, asks a verification mail for the signed-in user, and its link verifies the address', async () => {
    const { page, errors } = await open('#/signup');
    // The sign-up form leaves `verified` to the mail's link (the API refuses it at sign-up).
    await page.getByRole('heading', { name: 'Sign up' }).waitFor();
    expect(await page.locator('#f-verified').count()).toBe(0);
    await page.getByLabel('Name').fill('Ann');
    await page.getByLabel('Email').fill('ann@example.test');
    await page.getByLabel('Password').fill('correct horse');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByText('Signed in as Ann').waitFor();
    const ann = await login(a.api, 'ann@example.test');
    expect((await me(ann.token)).body.verified ?? false).toBe(false);
    await page.getByRole('link', { name: 'Verify your email' }).click();
    await page.getByText('Your email address ann@example.test is not verified yet').waitFor();
    await page.getByRole('button', { name: 'Send a new verification mail' }).click();
    await page.getByText('A verification mail is on its way to ann@example.test').waitFor();

    const { link } = linkToken(await smtp.next('ann@example.test'), 'verify');
    expect(link.startsWith(`${site.origin}/#/verify?token=`)).toBe(true);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Your email address is verified' }).waitFor();
    expect(page.url()).toBe(`${site.origin}/#/verify`);
    expect((await me(ann.token)).body.verified).toBe(true);
    // The session bar follows: no more "Verify your email".
    await expect.poll(() => page.getByRole('link', { name: 'Verify your email' }).count()).toBe(0);

    await page.goto(link);
    await page.getByRole('heading', { name: 'This link does not work' }).waitFor();
    expect(await page.getByRole('alert').innerText()).toMatch(/already used/);
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('offers a new verification mail on the log-in page of an app that logs in only verified addresses', async () => {
    await a.setValue('AUTH_REQUIRE_VERIFIED', 'true');
    try {
      const { page, errors } = await open('#/login');
      await logIn(page, 'cid@example.test', 'correct horse');
      await page.getByRole('alert').getByText('Your email address is not verified yet').waitFor();
      expect(await page.getByText('Signed in as Cid').count()).toBe(0);
      await page.getByRole('button', { name: 'Send a new verification mail' }).click();
      await page.getByText('A new verification mail is on its way to cid@example.test').waitFor();

      const { link } = linkToken(await smtp.next('cid@example.test'), 'verify');
      await page.goto(link);
      await page.getByRole('heading', { name: 'Your email address is verified' }).waitFor();
      await page.getByRole('link', { name: 'Log in' }).last().click();
      await page.getByRole('heading', { name: 'Log in' }).waitFor();
      await logIn(page, 'cid@example.test', 'correct horse');
      await page.getByText('Signed in as Cid').waitFor();
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await a.setValue('AUTH_REQUIRE_VERIFIED', null);
    }
  }, 90_000);

  it('confirms a new email address from the link of the mail sent to it', async () => {
    const cid = await login(a.api, 'cid@example.test');
    expect((await a.api.post('/auth/email/request', { newEmail: 'cid.new@example.test' }, cid.token)).status).toBe(202);
    const { link } = linkToken(await smtp.next('cid.new@example.test'), 'confirm-email');
    const { page, errors } = await open('#/login');
    await page.goto(link);
    await page.getByRole('heading', { name: 'Your email address is changed' }).waitFor();
    await page.getByText('address is now cid.new@example.test').waitFor();
    expect(page.url()).toBe(`${site.origin}/#/confirm-email`);
    expect((await me(cid.token)).body.email).toBe('cid.new@example.test');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});
