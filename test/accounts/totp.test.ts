// Issue 25 (part B): the TOTP second factor of a generated app's end users, over real HTTP on
// both drivers. Codes are made the way an authenticator app makes them (otpauth, from the
// enrolled secret); a "later" code is the one of the next 30-second step.
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type ProblemBody, type Rec } from '../runtime/served-app.ts';
import { MFA_ATTEMPTS_PER_MINUTE } from '../../src/runtime/http/account-provider-routes.ts';

const PASSWORD = 'correct horse';

interface Enrollment {
  secret: string;
  otpauthUri: string;
}

/** The code of the step `steps` after now. */
function codeOf(secret: string, steps = 0): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + steps * 30_000 });
}

/** A six-digit code that is none of the codes of the steps around now. */
function wrongCode(secret: string): string {
  const near = new Set([-2, -1, 0, 1, 2].map((s) => codeOf(secret, s)));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (!near.has(code)) return code;
  }
}

describe.each(await availableDrivers())('TOTP second factor on %s', (driver) => {
  let t: TestPlatform;
  let api: ServedApi;

  const login = (email: string) => api.post<Record<string, unknown>>('/auth/login', { email, password: PASSWORD });

  /** A new user with an active factor: their email, secret and recovery codes. */
  async function enrolledUser(name: string): Promise<{ email: string; token: string; secret: string; recoveryCodes: string[] }> {
    const email = `${name.toLowerCase()}@example.test`;
    const { token } = await api.signup(name, email, PASSWORD);
    const enrolled = await api.post<Enrollment>('/auth/mfa/totp/enroll', {}, token);
    expect(enrolled.status).toBe(200);
    const verified = await api.post<{ recoveryCodes: string[] }>('/auth/mfa/totp/verify', { code: codeOf(enrolled.body.secret) }, token);
    expect(verified.status).toBe(200);
    return { email, token, secret: enrolled.body.secret, recoveryCodes: verified.body.recoveryCodes };
  }

  async function challenge(email: string): Promise<string> {
    const reply = await login(email);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ mfaRequired: true, mfaToken: expect.any(String) });
    return reply.body.mfaToken as string;
  }

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    const tenant = await createTenant(t, 'Factors');
    const app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
  });
  afterAll(() => t?.close());

  it('enrolls, then log-in requires a code: a wrong one and a used one are refused, a fresh one completes', async () => {
    const { token } = await api.signup('Ann', 'ann@example.test', PASSWORD);
    expect((await api.post('/auth/mfa/totp/enroll', {})).status).toBe(401);
    const enrolled = await api.post<Enrollment>('/auth/mfa/totp/enroll', {}, token);
    expect(enrolled.status).toBe(200);
    const { secret, otpauthUri } = enrolled.body;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauthUri).toMatch(/^otpauth:\/\/totp\//);
    expect(new URL(otpauthUri).searchParams.get('secret')).toBe(secret);
    // Not active until a code confirms it: log-in still answers a session.
    expect((await login('ann@example.test')).body).toHaveProperty('token');

    const wrong = await api.post<ProblemBody>('/auth/mfa/totp/verify', { code: wrongCode(secret) }, token);
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0].path).toBe('/code');
    const used = codeOf(secret);
    const verified = await api.post<{ recoveryCodes: string[] }>('/auth/mfa/totp/verify', { code: used }, token);
    expect(verified.status).toBe(200);
    expect(new Set(verified.body.recoveryCodes).size).toBe(10);

    const mfaToken = await challenge('ann@example.test');
    // The mfaToken is no access token.
    expect((await api.get('/auth/me', mfaToken)).status).toBe(401);
    const refused = await api.post<ProblemBody>('/auth/mfa', { mfaToken, code: wrongCode(secret) });
    expect(refused.status).toBe(401);
    expect(refused.contentType).toContain('application/problem+json');
    // The code that activated the factor is spent: not taken again within its window.
    expect((await api.post('/auth/mfa', { mfaToken, code: used })).status).toBe(401);
    const fresh = codeOf(secret, 1);
    const done = await api.post<{ token: string; refreshToken: string; user: Rec }>('/auth/mfa', { mfaToken, code: fresh });
    expect(done.status).toBe(200);
    expect(done.body.refreshToken).toBeTruthy();
    const me = await api.get('/auth/me', done.body.token);
    expect(me.status).toBe(200);
    expect(me.body.email).toBe('ann@example.test');
    // And that code, once used, is refused the second time.
    expect((await api.post('/auth/mfa', { mfaToken: await challenge('ann@example.test'), code: fresh })).status).toBe(401);
  });

  it('takes each recovery code once', async () => {
    const bea = await enrolledUser('Bea');
    const [first, second] = bea.recoveryCodes;
    const done = await api.post<{ token: string }>('/auth/mfa', { mfaToken: await challenge(bea.email), code: first });
    expect(done.status).toBe(200);
    expect((await api.get('/auth/me', done.body.token)).status).toBe(200);
    const again = await api.post<ProblemBody>('/auth/mfa', { mfaToken: await challenge(bea.email), code: first });
    expect(again.status).toBe(401);
    // Typed in capitals, the next code still works.
    expect((await api.post('/auth/mfa', { mfaToken: await challenge(bea.email), code: second.toUpperCase() })).status).toBe(200);
  });

  it('disables the factor with a code, after which log-in answers a session again', async () => {
    const cid = await enrolledUser('Cid');
    expect((await api.post('/auth/mfa/totp/disable', { code: wrongCode(cid.secret) }, cid.token)).status).toBe(422);
    expect((await api.post('/auth/mfa/totp/disable', { code: cid.recoveryCodes[0] }, cid.token)).status).toBe(204);
    expect((await login(cid.email)).body).toHaveProperty('token');
  });

  it(`refuses more than ${MFA_ATTEMPTS_PER_MINUTE} code attempts a minute for one account, the right code included`, async () => {
    const dee = await enrolledUser('Dee');
    const mfaToken = await challenge(dee.email);
    // Enrolling and verifying were two of the account's attempts of this minute.
    for (let i = 2; i < MFA_ATTEMPTS_PER_MINUTE; i++) expect((await api.post('/auth/mfa', { mfaToken, code: wrongCode(dee.secret) })).status).toBe(401);
    const limited = await api.post<ProblemBody>('/auth/mfa', { mfaToken, code: codeOf(dee.secret, 1) });
    expect(limited.status).toBe(429);
    expect(limited.contentType).toContain('application/problem+json');
  });
});
