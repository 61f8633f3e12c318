// Issue 18 item 5: an attacker guessing end users' passwords through a generated app's
// /auth/login (and creating accounts through /auth/signup) without bound. Each test is the
// attacker's requests and the answers expected: per account, a lock after a few failures that
// grows at each lock; per address, a bound on attempts a minute; and never a hint whether the
// email tried is registered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { availableDrivers } from '../support/databases.ts';
import { AddressedApi, type AddressedReply } from '../support/from-address.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, todoScodeWithoutEvents } from '../runtime/served-app.ts';

const MAX_FAILURES = 3;
const LOCKOUT_SECONDS = 2;
const PER_ADDRESS = 12;
const RIGHT = 'correct horse';
const WRONG = 'battery staple';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function expectLocked(reply: AddressedReply, atMostSeconds: number): number {
  expect(reply.status).toBe(429);
  expect(reply.contentType).toContain('application/problem+json');
  expect(reply.body).toMatchObject({ status: 429, title: 'Too Many Requests' });
  const retryAfter = Number(reply.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(atMostSeconds);
  expect(reply.body).not.toHaveProperty('token');
  return retryAfter;
}

describe.each(await availableDrivers())('brute force against end-user log-in on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: AddressedApi;
  const login = (address: string, email: string, password: string) => api.post(address, '/auth/login', { email, password });

  beforeAll(async () => {
    t = await startTestPlatform(driver, { authMaxFailures: MAX_FAILURES, authLockoutSeconds: LOCKOUT_SECONDS, authRateLimitPerMinute: PER_ADDRESS });
    tenant = await createTenant(t, 'Guarded');
    const app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, app.id);
    api = new AddressedApi(t, tenant, app.id, app.serverVersion);
    for (const [i, name] of ['Ann', 'Bob', 'Carl', 'Dave', 'Erin'].entries()) await api.signup(`10.9.0.${i + 1}`, name, `${name.toLowerCase()}@example.test`, RIGHT);
  });
  afterAll(() => t?.close());

  it('locks an account after the failures, a registered email and an unknown one alike, and refuses even the right password until the lock ends', async () => {
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < MAX_FAILURES; i++) {
      known.push((await login('10.1.0.1', 'ann@example.test', WRONG)).status);
      unknown.push((await login('10.1.0.2', 'nobody@example.test', WRONG)).status);
    }
    expect(known).toEqual(Array(MAX_FAILURES).fill(401));
    expect(unknown).toEqual(known);
    expectLocked(await login('10.1.0.1', 'ann@example.test', RIGHT), LOCKOUT_SECONDS);
    expectLocked(await login('10.1.0.2', 'nobody@example.test', RIGHT), LOCKOUT_SECONDS);
    // The lock is the account's, whatever address tries it, and whatever case the email is sent in.
    expectLocked(await login('10.1.0.3', ' Ann@Example.TEST ', RIGHT), LOCKOUT_SECONDS);
    // Another account, from the attacker's own address, is unaffected.
    expect((await login('10.1.0.1', 'bob@example.test', RIGHT)).status).toBe(200);

    await sleep(LOCKOUT_SECONDS * 1000 + 200);
    const after = await login('10.1.0.4', 'ann@example.test', RIGHT);
    expect(after.status).toBe(200);
    expect(after.body).toHaveProperty('token');
  });

  it('doubles the lock at each further lock', async () => {
    for (let i = 0; i < MAX_FAILURES; i++) expect((await login('10.2.0.1', 'dave@example.test', WRONG)).status).toBe(401);
    expectLocked(await login('10.2.0.1', 'dave@example.test', WRONG), LOCKOUT_SECONDS);
    await sleep(LOCKOUT_SECONDS * 1000 + 200);
    for (let i = 0; i < MAX_FAILURES; i++) expect((await login('10.2.0.2', 'dave@example.test', WRONG)).status).toBe(401);
    const retryAfter = expectLocked(await login('10.2.0.2', 'dave@example.test', RIGHT), 2 * LOCKOUT_SECONDS);
    expect(retryAfter).toBeGreaterThan(LOCKOUT_SECONDS);
  });

  it('checks no more guesses sent at once for one account than the lock allows', async () => {
    const guesses = await Promise.all(Array.from({ length: MAX_FAILURES + 4 }, (_, i) => login(`10.6.0.${i + 1}`, 'frank@example.test', WRONG)));
    const statuses = guesses.map((g) => g.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(MAX_FAILURES);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(4);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    for (const refused of guesses.filter((g) => g.status === 429)) expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('forgets the failures of an account at its next successful log-in', async () => {
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < MAX_FAILURES - 1; i++) expect((await login('10.3.0.1', 'carl@example.test', WRONG)).status).toBe(401);
      expect((await login('10.3.0.1', 'carl@example.test', RIGHT)).status).toBe(200);
    }
  });

  it('bounds the sign-up and log-in attempts of one address a minute, whatever emails it tries; another address is unaffected', async () => {
    const attacker = '10.4.0.1';
    // Every email a new one, so that no account lock is what answers.
    for (let i = 0; i < PER_ADDRESS; i++) expect((await login(attacker, `guess${i}@example.test`, WRONG)).status).toBe(401);
    const refused = await login(attacker, 'guess-next@example.test', WRONG);
    expectLocked(refused, 60);
    expect(String(refused.body.detail)).toContain('from this address');
    expectLocked(await login(attacker, 'erin@example.test', RIGHT), 60);
    expectLocked(await api.post(attacker, '/auth/signup', { name: 'Mallory', email: 'mallory@example.test', password: RIGHT }), 60);
    expect((await login('10.4.0.2', 'erin@example.test', RIGHT)).status).toBe(200);
    expect((await login('10.4.0.2', 'guess0@example.test', WRONG)).status).toBe(401);
  });

  it('takes as long to refuse an unknown email as a wrong password: a hash is checked either way', async () => {
    const timed = async (address: string, email: string) => {
      const started = performance.now();
      expect((await login(address, email, WRONG)).status).toBe(401);
      return performance.now() - started;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < MAX_FAILURES - 1; i++) {
      known.push(await timed('10.5.0.1', 'erin@example.test'));
      unknown.push(await timed('10.5.0.2', `stranger${i}@example.test`));
    }
    // The scrypt check dominates both; without it an unknown email answers several times faster.
    expect(Math.min(...unknown)).toBeGreaterThan(Math.min(...known) * 0.5);
    expect((await login('10.5.0.1', 'erin@example.test', RIGHT)).status).toBe(200);
  });
});

describe('the configuration of the sign-up and log-in limits', () => {
  it('defaults to 30 attempts a minute per address and a lock after 5 failures, first for 60 s', () => {
    const config = loadConfig({});
    expect([config.authRateLimitPerMinute, config.authMaxFailures, config.authLockoutSeconds]).toEqual([30, 5, 60]);
    const set = loadConfig({ APPBUILDER_AUTH_RATE_LIMIT: '10', APPBUILDER_AUTH_MAX_FAILURES: '0', APPBUILDER_AUTH_LOCKOUT: '5m' });
    expect([set.authRateLimitPerMinute, set.authMaxFailures, set.authLockoutSeconds]).toEqual([10, 0, 300]);
  });
});
