// Issue 22 item 3: generated-app routes answer at most APPBUILDER_APP_RATE_LIMIT requests a
// minute per address, per signed-in end user and per API client; request N+1 → 429 with
// Retry-After and a problem body, and the per-version OpenAPI states it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { addressKey } from '../../src/runtime/http/rate-limits.ts';
import { availableDrivers } from '../support/databases.ts';
import { AddressedApi, type AddressedReply } from '../support/from-address.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, todoScodeWithoutEvents } from './served-app.ts';

const LIMIT = 5;

function expectTooMany(reply: AddressedReply): void {
  expect(reply.status).toBe(429);
  const retryAfter = Number(reply.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(reply.contentType).toContain('application/problem+json');
  expect(reply.body).toMatchObject({ status: 429, title: 'Too Many Requests' });
  expect(String(reply.body.detail)).toContain(`More than ${LIMIT} requests in a minute`);
  expect(reply.headers['x-ratelimit-remaining']).toBe('0');
}

describe.each(await availableDrivers())('APPBUILDER_APP_RATE_LIMIT on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: AddressedApi;
  let ann: { token: string };
  let bob: { token: string };

  beforeAll(async () => {
    t = await startTestPlatform(driver, { appRateLimitPerMinute: LIMIT });
    tenant = await createTenant(t, 'Limited');
    const app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, app.id);
    api = new AddressedApi(t, tenant, app.id, app.serverVersion);
    ann = await api.signup('10.9.0.1', 'Ann', 'ann@example.test');
    bob = await api.signup('10.9.0.2', 'Bob', 'bob@example.test');
  });
  afterAll(() => t?.close());

  it('answers request N+1 from one address with 429, Retry-After and a problem body; another address is unaffected', async () => {
    for (let i = 1; i <= LIMIT; i++) {
      const reply = await api.get('10.1.0.1', '/toDos');
      expect(reply.status).not.toBe(429);
      expect(reply.headers['x-ratelimit-limit']).toBe(String(LIMIT));
      expect(reply.headers['x-ratelimit-remaining']).toBe(String(LIMIT - i));
      expect(Number(reply.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(1);
    }
    expectTooMany(await api.get('10.1.0.1', '/toDos'));
    // Every route counts, not only the one that was repeated.
    expectTooMany(await api.get('10.1.0.1', '/openapi.json'));
    const other = await api.get('10.1.0.2', '/toDos');
    expect(other.status).not.toBe(429);
    expect(other.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1));
  });

  it('counts an IPv6 client by its /64 network, where one client holds many addresses', async () => {
    for (let i = 1; i <= LIMIT; i++) expect((await api.get(`2001:db8:7:7::${i.toString(16)}`, '/toDos')).status).not.toBe(429);
    expectTooMany(await api.get('2001:db8:7:7:ffff:ffff:ffff:ffff', '/toDos'));
    expect((await api.get('2001:db8:7:8::1', '/toDos')).status).not.toBe(429);
  });

  it('counts a signed-in end user by their account: the address they share is not theirs to exhaust, nor another user’s', async () => {
    const shared = '10.2.0.1';
    for (let i = 0; i < LIMIT; i++) expect((await api.get(shared, '/toDos')).status).not.toBe(429);
    expectTooMany(await api.get(shared, '/toDos'));
    for (let i = 0; i < LIMIT; i++) expect((await api.get(shared, '/toDos', ann)).status).toBe(200);
    expectTooMany(await api.get(shared, '/toDos', ann));
    // Ann changing address does not start her count over.
    expectTooMany(await api.get('10.2.0.2', '/auth/me', ann));
    const bobs = await api.get(shared, '/auth/me', bob);
    expect(bobs.status).toBe(200);
    expect(bobs.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1));
  });

  it('counts requests with a refused token against their address', async () => {
    const address = '10.3.0.1';
    for (let i = 0; i < LIMIT; i++) expect((await api.get(address, '/toDos', { token: 'not.a.token' })).status).toBe(401);
    expectTooMany(await api.get(address, '/toDos', { token: 'not.a.token' }));
    expectTooMany(await api.get(address, '/toDos'));
  });

  it('counts requests for versions that are not served against their address, credentials or not', async () => {
    const address = '10.4.0.1';
    const unknownApp = `${t.config.appsPath}/00000000-0000-4000-8000-000000000000/api/v1.0.0/toDos`;
    for (let i = 0; i < LIMIT; i++) {
      const reply = await t.platform.server.inject({ method: 'GET', url: unknownApp, remoteAddress: address, headers: { authorization: 'Bearer x' } });
      expect(reply.statusCode).toBe(404);
    }
    const refused = await t.platform.server.inject({ method: 'GET', url: unknownApp, remoteAddress: address, headers: { authorization: 'Bearer x' } });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
  });

  it('counts a builder acting as administrator by their API client, not by address', async () => {
    const address = '10.5.0.1';
    for (let i = 0; i < LIMIT; i++) await api.get(address, '/toDos');
    expectTooMany(await api.get(address, '/toDos'));
    for (let i = 0; i < LIMIT; i++) expect((await api.get(address, '/toDos', 'admin')).status).toBe(200);
    expectTooMany(await api.get('10.5.0.2', '/toDos', 'admin'));
  });

  it('states the limit, its headers and the 429 answer in the version’s OpenAPI document', async () => {
    const reply = await api.get<{
      info: { description: string };
      paths: Record<string, Record<string, { responses: Record<string, { $ref?: string; headers?: Record<string, unknown> }> }>>;
      components: { responses: Record<string, { headers: Record<string, unknown>; content: Record<string, unknown> }>; headers: Record<string, unknown> };
    }>('10.6.0.1', '/openapi.json');
    expect(reply.status).toBe(200);
    const doc = reply.body;
    expect(doc.info.description).toContain(`at most ${LIMIT} requests a minute`);
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [verb, operation] of Object.entries(item)) {
        if (!['get', 'post', 'patch', 'put', 'delete'].includes(verb)) continue;
        expect(operation.responses['429'], `${verb} ${path}`).toEqual({ $ref: '#/components/responses/Problem429' });
      }
    }
    const ok = doc.paths['/toDos'].get.responses['200'];
    expect(Object.keys(ok.headers ?? {})).toEqual(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']);
    const problem429 = doc.components.responses.Problem429;
    expect(Object.keys(problem429.headers)).toContain('Retry-After');
    expect(Object.keys(problem429.content)).toEqual(['application/problem+json']);
    expect(Object.keys(doc.components.headers)).toEqual(expect.arrayContaining(['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']));
  });
});

describe('the address a request is counted as', () => {
  it('is the IPv4 address, also IPv4-mapped, or the /64 network of an IPv6 address', () => {
    expect(addressKey('203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('2001:DB8:0:1:2:3:4:5')).toBe('2001:db8:0:1::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('2001:db8:0:0:ffff::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});

describe('the configuration of the app rate limit', () => {
  it('defaults to 600 a minute; 0 turns it off', () => {
    expect(loadConfig({}).appRateLimitPerMinute).toBe(600);
    expect(loadConfig({ APPBUILDER_APP_RATE_LIMIT: '0' }).appRateLimitPerMinute).toBe(0);
    expect(loadConfig({ APPBUILDER_APP_RATE_LIMIT: '1200' }).appRateLimitPerMinute).toBe(1200);
  });
});
