// CORS on a generated app (CORS_ORIGINS) on PGlite and PostgreSQL: on the app's own origin a
// preflight from an allowed origin is answered (204, methods, headers, max age) and its answers
// carry Access-Control-Allow-Origin with Vary: Origin; another origin gets no CORS header; on the
// shared path form there is never a CORS header; none set: same origin only. A change of the
// variable applies to the next request, without a new publish.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { fetchAppOrigin } from '../support/app-origin.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type Rec } from './served-app.ts';

const ALLOWED = 'https://shop.example';
const OTHER = 'https://evil.example';

describe.each(await availableDrivers())('CORS_ORIGINS on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let ann: { token: string; user: Rec };
  let ownApi: string;

  const setOrigins = async (value: string | null) => {
    const path = `/v1/applications/${api.applicationId}/variables/CORS_ORIGINS`;
    const reply = value === null ? await tenant.api.request('DELETE', path) : await tenant.api.request('PUT', path, { body: { value } });
    expect(reply.status).toBeLessThan(300);
  };
  const preflight = (url: string, origin: string, method = 'POST') =>
    fetchAppOrigin(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type' } });

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Cors');
    const app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    ann = await api.signup('Ann', 'ann@example.test');
    ownApi = `http://${app.id}.localhost:${new URL(t.baseUrl).port}/api/v${app.serverVersion}`;
  }, 120_000);
  afterAll(() => t?.close());

  it('with none set, answers a preflight without CORS headers (same origin only, as before)', async () => {
    const reply = await preflight(`${ownApi}/toDos`, ALLOWED);
    expect(reply.status).toBe(204);
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
    expect(reply.headers.get('allow')).toContain('POST');
    const read = await fetchAppOrigin(`${ownApi}/toDos`, { headers: { origin: ALLOWED, authorization: `Bearer ${ann.token}` } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers a preflight from an allowed origin and refuses another one', async () => {
    await setOrigins(`${ALLOWED}, https://admin.example`);
    const allowed = await preflight(`${ownApi}/toDos`, ALLOWED);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(allowed.headers.get('vary')).toContain('Origin');
    expect(allowed.headers.get('access-control-allow-methods')!.split(', ')).toEqual(expect.arrayContaining(['GET', 'POST', 'OPTIONS']));
    expect(allowed.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(Number(allowed.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();
    const one = await preflight(`${ownApi}/toDos/${ann.user.id}`, ALLOWED, 'PATCH');
    expect(one.headers.get('access-control-allow-methods')).toContain('PATCH');

    const other = await preflight(`${ownApi}/toDos`, OTHER);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(other.headers.get('access-control-allow-methods')).toBeNull();

    const missing = await preflight(`${ownApi}/nothing-here`, ALLOWED);
    expect(missing.status).toBe(404);
  });

  it('puts Access-Control-Allow-Origin on answers (errors too) for an allowed origin only', async () => {
    const created = await fetchAppOrigin(`${ownApi}/toDos`, {
      method: 'POST',
      headers: { origin: ALLOWED, authorization: `Bearer ${ann.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'cross-origin', status: 'open', user: ann.user.id }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(created.headers.get('access-control-expose-headers')).toContain('x-ratelimit-remaining');
    const refused = await fetchAppOrigin(`${ownApi}/toDos`, { method: 'POST', headers: { origin: ALLOWED, 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    const other = await fetchAppOrigin(`${ownApi}/toDos`, { headers: { origin: OTHER, authorization: `Bearer ${ann.token}` } });
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(other.headers.get('vary')).toContain('Origin');
  });

  it('never adds CORS on the shared path form', async () => {
    const reply = await fetch(`${api.base}/toDos`, { method: 'OPTIONS', headers: { origin: ALLOWED, 'access-control-request-method': 'POST' } });
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
    expect(reply.headers.get('access-control-allow-methods')).toBeNull();
    const read = await fetch(`${api.base}/toDos`, { headers: { origin: ALLOWED, authorization: `Bearer ${ann.token}` } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('allows any origin with *, and a change of the variable applies at once', async () => {
    await setOrigins('*');
    const any = await preflight(`${ownApi}/toDos`, OTHER);
    expect(any.headers.get('access-control-allow-origin')).toBe('*');
    await setOrigins(null);
    const none = await preflight(`${ownApi}/toDos`, OTHER);
    expect(none.headers.get('access-control-allow-origin')).toBeNull();
  });
});
