// Issue 23 item 6: each error a newcomer meets at the HTTP edge names the problem. A body sent as
// anything but JSON is 415 naming the expected type; a malformed or expired token says so; 413
// names the limit in bytes and APPBUILDER_BODY_LIMIT; malformed JSON names the position. On the
// management API and on a generated app.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import fc from 'fast-check';
import { availableDrivers } from '../support/databases.ts';
import { BOOTSTRAP, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi } from '../runtime/served-app.ts';
import { syntaxErrorOffset } from '../../src/api/json-body.ts';

const TOKEN_SECRET = 'error-messages-test-signing-secret-of-40-bytes';
const BODY_LIMIT = 100_000;

interface Answer {
  status: number;
  detail: string;
  contentType: string;
}

describe.each(await availableDrivers())('error messages at the HTTP edge on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let appPath: string;

  const send = async (method: string, path: string, options: { body?: string; type?: string; headers?: Record<string, string> } = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.type) headers['content-type'] = options.type;
    const response = await fetch(`${t.baseUrl}${path}`, { method, headers, body: options.body });
    const text = await response.text();
    const contentType = response.headers.get('content-type') ?? '';
    return { status: response.status, detail: contentType.includes('json') ? (JSON.parse(text) as { detail?: string }).detail ?? text : text, contentType };
  };
  const builder = (token = tenant.api.token!) => ({ authorization: `Bearer ${token}`, 'x-svc-api-client': tenant.api.apiKey! });

  beforeAll(async () => {
    t = await startTestPlatform(driver, { tokenSecret: TOKEN_SECRET, bodyLimitBytes: BODY_LIMIT });
    tenant = await createTenant(t, 'Newcomer');
    const app = await createTodoApp(tenant);
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    appPath = new URL(api.base).pathname;
  });
  afterAll(() => t?.close());

  describe('415: a body that is not JSON', () => {
    it('curl -d (form content type) on a JSON route names application/json and what was sent', async () => {
      const reply = await send('POST', '/v1/projects', { body: '{"name":"From curl"}', type: 'application/x-www-form-urlencoded', headers: builder() });
      expect(reply.status).toBe(415);
      expect(reply.contentType).toContain('application/problem+json');
      expect(reply.detail).toContain('content-type: application/json');
      expect(reply.detail).toContain('came as application/x-www-form-urlencoded');
    });

    it('text/plain on a JSON route of a generated app', async () => {
      const reply = await send('POST', `${appPath}/auth/login`, { body: '{"email":"a@b.c","password":"x"}', type: 'text/plain' });
      expect(reply.status).toBe(415);
      expect(reply.detail).toContain('application/json');
      expect(reply.detail).toContain('came as text/plain');
    });

    it('the token endpoint still takes forms, and names both types when refusing another', async () => {
      const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: BOOTSTRAP.id, client_secret: BOOTSTRAP.secret });
      const ok = await send('POST', '/v1/oauth/token', { body: form.toString(), type: 'application/x-www-form-urlencoded' });
      expect(ok.status).toBe(200);
      const refused = await send('POST', '/v1/oauth/token', { body: form.toString(), type: 'text/plain' });
      expect(refused.status).toBe(415);
      expect(refused.detail).toContain('application/json or application/x-www-form-urlencoded');
    });
  });

  describe('401: a token that is malformed or expired says so', () => {
    it('a malformed management token', async () => {
      const reply = await send('GET', '/v1/projects', { headers: builder('not-a-jwt') });
      expect(reply.status).toBe(401);
      expect(reply.detail).toMatch(/malformed/);
    });

    it('an expired management token', async () => {
      const past = Math.floor(Date.now() / 1000) - 7200;
      const expired = await new SignJWT({ cus: 'c', key: tenant.api.apiKey })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('client')
        .setIssuer('appbuilder')
        .setAudience('appbuilder-management')
        .setIssuedAt(past)
        .setExpirationTime(past + 3600)
        .sign(new TextEncoder().encode(TOKEN_SECRET));
      const reply = await send('GET', '/v1/projects', { headers: builder(expired) });
      expect(reply.status).toBe(401);
      expect(reply.detail).toMatch(/expired/);
      expect(reply.detail).toContain('oauth/token');
    });

    it('a management token signed by someone else', async () => {
      const forged = await new SignJWT({ key: tenant.api.apiKey })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer('appbuilder')
        .setAudience('appbuilder-management')
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode('another-secret-another-secret-another-secret'));
      const reply = await send('GET', '/v1/projects', { headers: builder(forged) });
      expect(reply.status).toBe(401);
      expect(reply.detail).toMatch(/not issued by this service/);
    });

    it('a malformed and an expired end-user token on a generated app', async () => {
      const malformed = await send('GET', `${appPath}/toDos`, { headers: { authorization: 'Bearer abc.def' } });
      expect(malformed.status).toBe(401);
      expect(malformed.detail).toMatch(/malformed/);
      const past = Math.floor(Date.now() / 1000) - 3600;
      const expired = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('u').setIssuedAt(past).setExpirationTime(past + 60).sign(new Uint8Array(32));
      const reply = await send('GET', `${appPath}/toDos`, { headers: { authorization: `Bearer ${expired}` } });
      expect(reply.status).toBe(401);
      expect(reply.detail).toMatch(/expired/);
      expect(reply.detail).toContain('auth/login');
    });
  });

  describe('413: a body over the limit names it', () => {
    it('on the management API and on a generated app', async () => {
      const big = JSON.stringify({ name: 'x'.repeat(BODY_LIMIT + 10) });
      for (const [path, headers] of [
        ['/v1/projects', builder()],
        [`${appPath}/auth/signup`, {}],
      ] as const) {
        const reply = await send('POST', path, { body: big, type: 'application/json', headers });
        expect(reply.status, path).toBe(413);
        expect(reply.detail, path).toContain(`${BODY_LIMIT} bytes`);
        expect(reply.detail, path).toContain('APPBUILDER_BODY_LIMIT');
      }
    });
  });

  describe('400: malformed JSON names the position', () => {
    it('an unexpected character, with line, column and offset', async () => {
      const reply = await send('POST', '/v1/projects', { body: '{\n  "name": "x",\n  "components": [1,]\n}', type: 'application/json', headers: builder() });
      expect(reply.status).toBe(400);
      expect(reply.detail).toContain('not valid JSON');
      expect(reply.detail).toContain('unexpected "]" at line 3, column 20 (position 36)');
    });

    it('a body that ends too early, on a generated app', async () => {
      const reply = await send('POST', `${appPath}/auth/signup`, { body: '{"email":"a@b.c","password":', type: 'application/json' });
      expect(reply.status).toBe(400);
      expect(reply.detail).toContain('ends too early');
      expect(reply.detail).toContain('position 28');
    });
  });
});

describe('the position of a JSON syntax error', () => {
  it('is never claimed for valid JSON, and for invalid text is where a JSON prefix stops', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(syntaxErrorOffset(text)).toBe(-1);
      }),
      { seed: 23, numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.json(), fc.nat(), fc.string({ maxLength: 3 }), (text, cut, junk) => {
        const broken = text.slice(0, cut % (text.length + 1)) + junk;
        let valid = true;
        try {
          JSON.parse(broken);
        } catch {
          valid = false;
        }
        const offset = syntaxErrorOffset(broken);
        if (valid) {
          expect(offset).toBe(-1);
        } else {
          expect(offset).toBeGreaterThanOrEqual(0);
          expect(offset).toBeLessThanOrEqual(broken.length);
          // Everything before the offset is JSON or the start of some: it is not refused earlier.
          expect([-1, offset]).toContain(syntaxErrorOffset(broken.slice(0, offset)));
        }
      }),
      { seed: 23, numRuns: 300 },
    );
  });
});
