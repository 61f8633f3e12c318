// The attack: an anonymous caller asks for a password reset of the victim's account with
// `Host: evil.example` (and forwarded headers naming it too). If the mail's link were built from
// the request, the victim would receive a genuine reset link to the attacker's host, and opening
// it would hand over the token. The link must point at the app's FRONTEND_URL, else at the app's
// own origin as the service is configured; never at a host the request names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Problem } from '../../src/errors.ts';
import { mailLinkBase } from '../../src/runtime/accounts/email-flows.ts';
import { availableDrivers } from '../support/databases.ts';
import { fetchAppOrigin } from '../support/app-origin.ts';
import { TestSmtpServer, allowLoopbackMail, linkToken } from '../accounts/email-server.ts';
import { startAccountsApp, type AccountsApp } from '../accounts/sessions-app.ts';

describe('where mail links point (no request involved)', () => {
  const own = 'http://0190aaaa-0000-7000-8000-000000000001.localhost:8080';
  it('takes FRONTEND_URL, else the configured own origin, and answers 503 with neither', () => {
    expect(mailLinkBase({ FRONTEND_URL: 'https://todo.example.test/app/' }, own)).toBe('https://todo.example.test/app/');
    expect(mailLinkBase({}, own)).toBe(`${own}/`);
    const none = (() => {
      try {
        mailLinkBase({}, null);
      } catch (error) {
        return error as Problem;
      }
    })();
    expect(none).toBeInstanceOf(Problem);
    expect(none!.status).toBe(503);
    expect(none!.message).toMatch(/FRONTEND_URL/);
    expect(none!.message).toMatch(/APPBUILDER_APPS_DOMAIN/);
    expect(() => mailLinkBase({ FRONTEND_URL: 'javascript:alert(1)' }, own)).toThrow(/FRONTEND_URL/);
  });
});

describe.each(await availableDrivers())('a reset requested with a forged Host on %s', (driver) => {
  let a: AccountsApp;
  let smtp: TestSmtpServer;
  let restoreAllow: (() => void) | undefined;

  beforeAll(async () => {
    // The test's mail server listens on loopback: listed, in case mail goes through the outbound guard.
    restoreAllow = allowLoopbackMail();
    smtp = await TestSmtpServer.start();
    a = await startAccountsApp(driver);
    await a.setValue('SMTP_URL', smtp.url, 'secrets');
    await a.api.signup('Victim', 'victim@example.test');
  }, 120_000);
  afterAll(async () => {
    restoreAllow?.();
    await a?.t.close();
    await smtp?.close();
  });

  it('mails a link to the app\'s own origin, not to the host the request named', async () => {
    const port = new URL(a.t.baseUrl).port;
    const path = new URL(a.api.base).pathname;
    // The request reaches the service (loopback) while naming evil.example as its host.
    const asked = await fetchAppOrigin(`http://evil.example:${port}${path}/auth/password/request`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
      body: JSON.stringify({ email: 'victim@example.test' }),
    });
    expect(asked.status).toBe(202);
    const mail = await smtp.next('victim@example.test');
    const { link } = linkToken(mail, 'reset-password');
    expect(mail.text).not.toContain('evil.example');
    expect(mail.html).not.toContain('evil.example');
    expect(link.startsWith(`${a.t.platform.origins.of(a.api.applicationId)}/#/reset-password?token=`)).toBe(true);
  });

  it('uses FRONTEND_URL when the app sets it, whatever the host', async () => {
    await a.setValue('FRONTEND_URL', 'https://todo.example.test/');
    try {
      const port = new URL(a.t.baseUrl).port;
      const asked = await fetchAppOrigin(`http://evil.example:${port}${new URL(a.api.base).pathname}/auth/password/request`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'victim@example.test' }),
      });
      expect(asked.status).toBe(202);
      expect(linkToken(await smtp.next('victim@example.test'), 'reset-password').link.startsWith('https://todo.example.test/#/reset-password?token=')).toBe(true);
    } finally {
      await a.setValue('FRONTEND_URL', null);
    }
  });
});
