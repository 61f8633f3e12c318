import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { BOOTSTRAP, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { ApiClient } from '../support/client.ts';

const drivers = await availableDrivers();

interface Operation {
  method: string;
  path: string;
  operationId: string;
}

const SAMPLE_PARAMS: Record<string, string> = {
  modelId: 'urn:svc:model:todo',
  fieldId: 'urn:svc:edge:todo-title',
  actionId: 'urn:svc:action:complete-todo',
  triggerId: 'urn:svc:trigger:complete-todo',
};

function concretePath(path: string): string {
  return path.replace(/\{(\w+)\}/g, (_all, name: string) => SAMPLE_PARAMS[name] ?? '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b');
}

describe.each(drivers)('management authentication (%s)', (driver) => {
  let t: TestPlatform;
  let admin: ApiClient;
  let operations: Operation[];

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    admin = await ApiClient.login(t.baseUrl, { apiKey: BOOTSTRAP.id, secret: BOOTSTRAP.secret });
    const spec = await admin.get<{ paths: Record<string, Record<string, { operationId: string; security?: unknown[] }>> }>('/v1/openapi.json');
    expect(spec.status).toBe(200);
    operations = Object.entries(spec.body.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => !(Array.isArray(op.security) && op.security.length === 0))
        .map(([method, op]) => ({ method: method.toUpperCase(), path, operationId: op.operationId })),
    );
  });
  afterAll(() => t?.close());

  async function expectEvery401(headers: Record<string, string>, label: string) {
    expect(operations.length).toBeGreaterThan(10);
    for (const op of operations) {
      const response = await fetch(`${t.baseUrl}${concretePath(op.path)}`, {
        method: op.method,
        headers: { ...headers, ...(op.method === 'GET' || op.method === 'DELETE' ? {} : { 'content-type': 'application/json' }) },
        body: op.method === 'GET' || op.method === 'DELETE' ? undefined : '{}',
      });
      expect(response.status, `${label}: ${op.method} ${op.path}`).toBe(401);
      expect(response.headers.get('content-type'), op.operationId).toContain('application/problem+json');
    }
  }

  it('refuses every operation without credentials', async () => {
    await expectEvery401({}, 'no credentials');
  });

  it('refuses a wrong secret at the token endpoint and a forged token everywhere', async () => {
    const bad = await fetch(`${t.baseUrl}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: BOOTSTRAP.id, client_secret: 'wrong' }),
    });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ status: 401 });
    const forged = admin.token!.slice(0, -4) + (admin.token!.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    await expectEvery401({ authorization: `Bearer ${forged}`, 'x-svc-api-client': BOOTSTRAP.id }, 'forged token');
  });

  it("refuses one client's token with another client's key", async () => {
    const other = await admin.post<{ apiKey: string; secret: string }>('/v1/api-clients', { name: 'second' });
    expect(other.status).toBe(201);
    await expectEvery401({ authorization: `Bearer ${admin.token}`, 'x-svc-api-client': other.body.apiKey }, 'mismatched key');
  });

  it("refuses one customer's token with another customer's key", async () => {
    const customer = async (name: string) =>
      (await admin.post<{ apiClient: { apiKey: string; secret: string } }>('/v1/customers', { name })).body.apiClient;
    const [a, b] = [await customer('Customer A'), await customer('Customer B')];
    const clientA = await ApiClient.login(t.baseUrl, a);
    expect((await clientA.get('/v1/projects')).status).toBe(200);
    await expectEvery401({ authorization: `Bearer ${clientA.token}`, 'x-svc-api-client': b.apiKey }, "customer A's token, customer B's key");
    // And the other way round: B's key is not a way into A's data.
    const clientB = await ApiClient.login(t.baseUrl, b);
    await expectEvery401({ authorization: `Bearer ${clientB.token}`, 'x-svc-api-client': a.apiKey }, "customer B's token, customer A's key");
  });

  it('refuses a revoked client at once', async () => {
    const created = await admin.post<{ id: string; apiKey: string; secret: string }>('/v1/api-clients', { name: 'to-revoke' });
    const client = await ApiClient.login(t.baseUrl, created.body);
    expect((await client.get('/v1/projects')).status).toBe(200);
    expect((await admin.delete(`/v1/api-clients/${created.body.id}`)).status).toBe(204);
    await expectEvery401({ authorization: `Bearer ${client.token}`, 'x-svc-api-client': client.apiKey! }, 'revoked client');
    const again = await fetch(`${t.baseUrl}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: created.body.apiKey, client_secret: created.body.secret }),
    });
    expect(again.status).toBe(401);
  });

  it('issues tokens from JSON, form-encoded and Basic requests', async () => {
    const form = await fetch(`${t.baseUrl}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: BOOTSTRAP.id, client_secret: BOOTSTRAP.secret }).toString(),
    });
    expect(form.status).toBe(200);
    const body = (await form.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(typeof body.access_token).toBe('string');
    const basic = await fetch(`${t.baseUrl}/v1/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${BOOTSTRAP.id}:${BOOTSTRAP.secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(basic.status).toBe(200);
    const wrongGrant = await fetch(`${t.baseUrl}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', client_id: BOOTSTRAP.id, client_secret: BOOTSTRAP.secret }),
    });
    expect(wrongGrant.status).toBe(400);
  });

  it('lets a platform administrator create customers, and nobody else', async () => {
    const created = await admin.post<{ id: string; name: string; apiClient: { apiKey: string; secret: string } }>('/v1/customers', { name: 'Acme' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Acme', apiClient: { apiKey: expect.any(String), secret: expect.any(String) } });
    const acme = await ApiClient.login(t.baseUrl, created.body.apiClient);
    const refused = await acme.post('/v1/customers', { name: 'Evil' });
    expect(refused.status).toBe(403);
    const clients = await acme.get<{ items: Array<Record<string, unknown>>; metadata: { total: number } }>('/v1/api-clients');
    expect(clients.body.metadata.total).toBe(1);
    expect(JSON.stringify(clients.body)).not.toContain(created.body.apiClient.secret);
  });

  it("answers 404 for another customer's resources, never their data", async () => {
    const created = await admin.post<{ apiClient: { apiKey: string; secret: string } }>('/v1/customers', { name: 'Tenant B' });
    const tenantB = await ApiClient.login(t.baseUrl, created.body.apiClient);
    const project = await admin.post<{ id: string }>('/v1/projects', { name: 'Secret project' });
    expect(project.status).toBe(201);
    for (const [method, body] of [['GET'], ['PATCH', { name: 'stolen' }], ['DELETE']] as const) {
      const reply = await tenantB.request(method, `/v1/projects/${project.body.id}`, { body });
      expect(reply.status, method).toBe(404);
      expect(reply.text).not.toContain('Secret project');
    }
    const list = await tenantB.get<{ items: unknown[]; metadata: { total: number } }>('/v1/projects');
    expect(list.body.metadata.total).toBe(0);
    expect((await admin.get(`/v1/projects/${project.body.id}`)).status).toBe(200);
  });
});

describe('token endpoint rate limit', () => {
  it('answers 429 with a problem body past the limit', async () => {
    const t = await startTestPlatform('pglite', { tokenRateLimitPerMinute: 3 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const reply = await fetch(`${t.baseUrl}/v1/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_id: 'nobody', client_secret: 'nothing' }),
        });
        statuses.push(reply.status);
        if (reply.status === 429) expect(reply.headers.get('content-type')).toContain('application/problem+json');
      }
      expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
      expect(statuses.slice(3)).toEqual([429, 429]);
    } finally {
      await t.close();
    }
  });
});
