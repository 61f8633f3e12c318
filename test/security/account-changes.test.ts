// Two attacks on end-user accounts:
// - a thief holding the victim's access token (stolen from a page, a log, a shared machine; or
//   minted from a stolen refresh token) moves the account to the thief's address. The change needs
//   the current password, or a sign-in within the last five minutes; and when a change goes
//   through, the old address is told.
// - an anonymous caller learns who is registered from sign-up's answers. With the app setting
//   SIGNUP_NEUTRAL=true the answer is the same for a registered and a new address (the default
//   keeps 409; docs/security.md says why).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { TestSmtpServer, allowLoopbackMail, linkToken } from '../accounts/email-server.ts';
import { login, startAccountsApp, type AccountsApp, type SessionBody } from '../accounts/sessions-app.ts';

interface ProblemReply {
  detail: string;
  errors: Array<{ path: string; message: string }>;
}

describe.each(await availableDrivers())('account changes on %s', (driver) => {
  let a: AccountsApp;
  let smtp: TestSmtpServer;
  let restoreAllow: (() => void) | undefined;

  /** The victim's session as a thief holds it: its sign-in ten minutes back, its access token freshly refreshed. */
  async function stolenSession(email: string): Promise<SessionBody> {
    const session = await login(a.api, email);
    await sql`update appbuilder.end_user_sessions set created_at = now() - interval '10 minutes'
      where application_id = ${a.api.applicationId} and user_id = ${session.user.id}`.execute(a.t.database.db.kysely);
    const refreshed = await a.api.post<SessionBody>('/auth/refresh', { refreshToken: session.refreshToken });
    expect(refreshed.status).toBe(200);
    return refreshed.body;
  }

  beforeAll(async () => {
    restoreAllow = allowLoopbackMail();
    smtp = await TestSmtpServer.start();
    a = await startAccountsApp(driver);
    await a.setValue('SMTP_URL', smtp.url, 'secrets');
    await a.setValue('FRONTEND_URL', 'https://todo.example.test/');
    await a.api.signup('Victim', 'victim@example.test');
    await a.api.signup('Taken', 'taken@example.test');
  }, 120_000);
  afterAll(async () => {
    restoreAllow?.();
    await a?.t.close();
    await smtp?.close();
  });

  it('refuses an email change with a stolen access token and no password, and tells the old address of a change that goes through', async () => {
    const stolen = await stolenSession('victim@example.test');
    // The thief's request: the token works for reading, not for moving the account.
    expect((await a.api.get('/auth/me', stolen.token)).status).toBe(200);
    const refused = await a.api.post<ProblemReply>('/auth/email/request', { newEmail: 'thief@evil.example' }, stolen.token);
    expect(refused.status).toBe(403);
    expect(refused.contentType).toContain('application/problem+json');
    expect(refused.body.errors[0]).toMatchObject({ path: '/currentPassword', message: 'is required' });
    const guessed = await a.api.post<ProblemReply>('/auth/email/request', { newEmail: 'thief@evil.example', currentPassword: 'a guess' }, stolen.token);
    expect(guessed.status).toBe(403);
    expect(guessed.body.errors[0].path).toBe('/currentPassword');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(smtp.count('thief@evil.example')).toBe(0);

    // The owner, with the password: the change goes through, and the old address hears of it.
    const asked = await a.api.post('/auth/email/request', { newEmail: 'victim.new@example.test', currentPassword: 'correct horse' }, stolen.token);
    expect(asked.status).toBe(202);
    const { token } = linkToken(await smtp.next('victim.new@example.test'), 'confirm-email');
    expect(await a.api.post('/auth/email/confirm', { token })).toMatchObject({ status: 200, body: { email: 'victim.new@example.test' } });
    const notice = await smtp.next('victim@example.test');
    expect(notice.subject).toMatch(/email address of your .* account changed/);
    expect(notice.text).toContain('victim.new@example.test');
    expect(notice.text).not.toMatch(/token=/);
  });

  it('lets a fresh sign-in change the email without the password', async () => {
    const fresh = await login(a.api, 'taken@example.test');
    expect((await a.api.post('/auth/email/request', { newEmail: 'taken.too@example.test' }, fresh.token)).status).toBe(202);
    expect(linkToken(await smtp.next('taken.too@example.test'), 'confirm-email').token).toBeTruthy();
  });

  it('answers sign-ups the same whether the email is registered when SIGNUP_NEUTRAL is set', async () => {
    // Default: a registered address is 409 (the trade-off docs/security.md states).
    expect((await a.api.post('/auth/signup', { name: 'Probe', email: 'taken@example.test', password: 'correct horse' })).status).toBe(409);
    await a.setValue('SIGNUP_NEUTRAL', 'true');
    try {
      const taken = await a.api.post('/auth/signup', { name: 'Probe', email: 'taken@example.test', password: 'another password' });
      const fresh = await a.api.post('/auth/signup', { name: 'New', email: 'new@example.test', password: 'correct horse' });
      expect(taken.status).toBe(202);
      expect(fresh).toEqual(taken);
      // A body refused for another reason is refused alike for both addresses (the email is checked last).
      const badTaken = await a.api.post('/auth/signup', { email: 'taken@example.test', password: 'correct horse' });
      const badFresh = await a.api.post('/auth/signup', { email: 'other@example.test', password: 'correct horse' });
      expect(badTaken.status).toBe(422);
      expect(badFresh).toEqual(badTaken);
      // The registered address is told someone tried; the new one gets its verification link.
      const notice = await smtp.next('taken@example.test');
      expect(notice.subject).toMatch(/tried to sign up/);
      expect(linkToken(await smtp.next('new@example.test'), 'verify').token).toBeTruthy();
      // The registered account kept its password; the new account exists and logs in.
      expect((await a.api.post('/auth/login', { email: 'taken@example.test', password: 'another password' })).status).toBe(401);
      expect((await login(a.api, 'new@example.test')).user.email).toBe('new@example.test');
    } finally {
      await a.setValue('SIGNUP_NEUTRAL', null);
    }
  });
});
