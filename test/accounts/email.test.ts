// Issue 25 (DESIGN §18): the account mails against a real SMTP server started here
// (smtp-server), on both drivers. Each mail arrives with a link to the app's frontend page; its
// token works once; a second use and an expired token are refused; a password reset ends every
// session at once (access and refresh tokens); the `verified` field follows, and an app that
// requires it refuses unverified log-ins.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { allowLoopbackMail, TestSmtpServer, linkToken } from './email-server.ts';
import { login, startAccountsApp, type AccountsApp, type SessionBody } from './sessions-app.ts';

const EXPIRING_TTL = 2;
const PER_ACCOUNT = 4;
const FRONTEND = 'https://todo.example.test/';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface ProblemReply {
  type: string;
  detail: string;
  errors: Array<{ path: string; message: string }>;
}

describe.each(await availableDrivers())('account mails on %s', (driver) => {
  let a: AccountsApp;
  let smtp: TestSmtpServer;
  let restoreAllow: (() => void) | undefined;
  const me = (token: string) => a.api.get<SessionBody['user']>('/auth/me', token);

  beforeAll(async () => {
    restoreAllow = allowLoopbackMail();
    smtp = await TestSmtpServer.start();
    a = await startAccountsApp(driver, { emailChangeTokenTtlSeconds: EXPIRING_TTL, accountPerMinute: PER_ACCOUNT });
    // The SMTP URL as the app's secret (it may hold a password), the links' base and sender as variables.
    await a.setValue('SMTP_URL', smtp.url, 'secrets');
    await a.setValue('FRONTEND_URL', FRONTEND);
    await a.setValue('MAIL_FROM', 'To-do <todo@example.test>');
    for (const name of ['Ann', 'Bob', 'Cid', 'Dee', 'Eve']) await a.api.signup(name, `${name.toLowerCase()}@example.test`);
  });
  afterAll(async () => {
    await a?.t.close();
    await smtp?.close();
    restoreAllow?.();
  });

  it('verifies an address: the mail arrives, its link works once, and a required verification gates log-in', async () => {
    const ann = await login(a.api, 'ann@example.test');
    expect(ann.user.verified ?? false).toBe(false);
    await a.setValue('AUTH_REQUIRE_VERIFIED', 'true');
    try {
      await verifyAnn(ann);
    } finally {
      await a.setValue('AUTH_REQUIRE_VERIFIED', null);
    }
  });

  async function verifyAnn(ann: SessionBody): Promise<void> {
    const refused = await a.api.post<ProblemReply>('/auth/login', { email: 'ann@example.test', password: 'correct horse' });
    expect(refused.status).toBe(403);
    expect(refused.contentType).toContain('application/problem+json');
    expect(refused.body.type).toBe('https://appbuilder.dev/problems/email-not-verified');
    // A wrong password still says nothing more than a 401.
    expect((await a.api.post('/auth/login', { email: 'ann@example.test', password: 'wrong password' })).status).toBe(401);

    const asked = await a.api.post('/auth/verify/request', {}, ann.token);
    expect(asked.status).toBe(202);
    const mail = await smtp.next('ann@example.test');
    expect(mail.from).toContain('todo@example.test');
    expect(mail.subject).toMatch(/Confirm your email address/);
    const { link, token } = linkToken(mail, 'verify');
    expect(link.startsWith(`${FRONTEND}#/verify?token=`)).toBe(true);
    expect(mail.html).toContain(`href="${link}"`);

    expect(await a.api.post('/auth/verify/confirm', { token })).toMatchObject({ status: 200, body: { verified: true } });
    expect((await me(ann.token)).body.verified).toBe(true);
    const again = await a.api.post<ProblemReply>('/auth/verify/confirm', { token });
    expect(again.status).toBe(400);
    expect(again.body.errors[0]).toMatchObject({ path: '/token', message: expect.stringMatching(/already used/) });
    expect((await a.api.post('/auth/login', { email: 'ann@example.test', password: 'correct horse' })).status).toBe(200);
  }

  it('resets a password: 202, the mail, the new password; every session ends at once; the link works once', async () => {
    const before = await login(a.api, 'bob@example.test');
    const other = await login(a.api, 'bob@example.test');
    const asked = await a.api.post('/auth/password/request', { email: ' Bob@Example.TEST ' });
    expect(asked.status).toBe(202);
    const { link, token } = linkToken(await smtp.next('bob@example.test'), 'reset-password');
    expect(link.startsWith(`${FRONTEND}#/reset-password?token=`)).toBe(true);

    const short = await a.api.post<ProblemReply>('/auth/password/confirm', { token, password: 'short' });
    expect(short.status).toBe(422);
    expect(short.body.errors[0].path).toBe('/password');
    // A refused password does not use the link up.
    expect((await a.api.post('/auth/password/confirm', { token, password: 'a new password' })).status).toBe(204);

    for (const session of [before, other]) {
      expect((await me(session.token)).status).toBe(401);
      expect((await a.api.post('/auth/refresh', { refreshToken: session.refreshToken })).status).toBe(401);
    }
    expect((await a.api.post('/auth/login', { email: 'bob@example.test', password: 'correct horse' })).status).toBe(401);
    const after = await login(a.api, 'bob@example.test', 'a new password');
    expect((await me(after.token)).status).toBe(200);
    // Opening the link proved the address.
    expect(after.user.verified).toBe(true);

    const again = await a.api.post<ProblemReply>('/auth/password/confirm', { token, password: 'yet another one' });
    expect(again.status).toBe(400);
    expect(again.body.errors[0].path).toBe('/token');
    expect((await a.api.post('/auth/login', { email: 'bob@example.test', password: 'a new password' })).status).toBe(200);
  });

  it('changes an email through a mail to the new address; an expired link is refused and changes nothing', async () => {
    const cid = await login(a.api, 'cid@example.test');
    expect((await a.api.post('/auth/email/request', { newEmail: 'cid.new@example.test' }, cid.token)).status).toBe(202);
    const expired = linkToken(await smtp.next('cid.new@example.test'), 'confirm-email').token;
    await sleep(EXPIRING_TTL * 1000 + 500);
    const late = await a.api.post<ProblemReply>('/auth/email/confirm', { token: expired });
    expect(late.status).toBe(400);
    expect(late.body.errors[0]).toMatchObject({ path: '/token', message: 'has expired' });
    expect((await me(cid.token)).body.email).toBe('cid@example.test');

    expect((await a.api.post('/auth/email/request', { newEmail: 'cid.new@example.test' }, cid.token)).status).toBe(202);
    const { token } = linkToken(await smtp.next('cid.new@example.test'), 'confirm-email');
    expect(await a.api.post('/auth/email/confirm', { token })).toMatchObject({ status: 200, body: { email: 'cid.new@example.test' } });
    expect((await me(cid.token)).body).toMatchObject({ email: 'cid.new@example.test', verified: true });
    expect((await a.api.post('/auth/email/confirm', { token })).status).toBe(400);
    expect((await login(a.api, 'cid.new@example.test')).user.id).toBe(cid.user.id);
  });

  it('needs a signed-in user to change an email, and an email address to send to', async () => {
    expect((await a.api.post('/auth/email/request', { newEmail: 'x@example.test' })).status).toBe(401);
    const dee = await login(a.api, 'dee@example.test');
    const bad = await a.api.post<ProblemReply>('/auth/email/request', { newEmail: 'not an address' }, dee.token);
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].path).toBe('/newEmail');
    expect((await a.api.post<ProblemReply>('/auth/password/request', {})).body.errors[0].path).toBe('/email');
  });

  it('refuses sign-ups that set verified themselves', async () => {
    const reply = await a.api.post<ProblemReply>('/auth/signup', { name: 'Mal', email: 'mal@example.test', password: 'correct horse', verified: true });
    expect(reply.status).toBe(422);
    expect(reply.body.errors[0].path).toBe('/verified');
  });

  it('limits mail requests per account, registered or not, with the same answers', async () => {
    const answers = async (email: string) => {
      const statuses: number[] = [];
      for (let i = 0; i < PER_ACCOUNT + 1; i++) statuses.push((await a.api.post('/auth/password/request', { email })).status);
      return statuses;
    };
    const known = await answers('eve@example.test');
    const unknown = await answers('nobody@example.test');
    expect(known).toEqual([...Array(PER_ACCOUNT).fill(202), 429]);
    expect(unknown).toEqual(known);
  });
});
