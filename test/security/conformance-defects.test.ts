// Defects an outside OpenAPI conformance run found, each as the requests that showed it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { BOOTSTRAP, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { ApiClient } from '../support/client.ts';
import { createTenant, createTodoApp } from '../support/tenant.ts';
import { publish } from '../support/publish.ts';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const drivers = await availableDrivers();

describe.each(drivers)('conformance defects (%s)', (driver) => {
  let t: TestPlatform;
  let admin: ApiClient;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    admin = await ApiClient.login(t.baseUrl, { apiKey: BOOTSTRAP.id, secret: BOOTSTRAP.secret });
  });
  afterAll(() => t?.close());

  it('refuses an API client revoking itself (409), and it keeps working', async () => {
    const created = await admin.post<{ id: string; apiKey: string; secret: string }>('/v1/api-clients', { name: 'script' });
    const script = await ApiClient.login(t.baseUrl, created.body);
    const reply = await script.delete<{ status: number; errors: Array<{ path: string }> }>(`/v1/api-clients/${created.body.id}`);
    expect(reply.status).toBe(409);
    expect(reply.body.errors[0].path).toBe('/apiClientId');
    expect((await script.get('/v1/projects')).status).toBe(200);
  });

  it('refuses revoking the last active platform administrator client (409)', async () => {
    const clients = await admin.get<{ items: Array<{ id: string; apiKey: string; isPlatformAdmin: boolean }> }>('/v1/api-clients');
    const bootstrap = clients.body.items.find((c) => c.apiKey === BOOTSTRAP.id)!;
    expect(bootstrap.isPlatformAdmin).toBe(true);
    const created = await admin.post<{ id: string; apiKey: string; secret: string }>('/v1/api-clients', { name: 'other owner' });
    const other = await ApiClient.login(t.baseUrl, created.body);
    const reply = await other.delete<{ detail: string }>(`/v1/api-clients/${bootstrap.id}`);
    expect(reply.status).toBe(409);
    expect(reply.body.detail).toContain('last active platform administrator');
    expect((await admin.get('/v1/projects')).status).toBe(200);
    // An ordinary client is still revoked by another one.
    expect((await admin.delete(`/v1/api-clients/${created.body.id}`)).status).toBe(204);
  });

  it('answers a huge offset with a schema error, never the database text', async () => {
    for (const offset of ['100000000000000000000', '1e30']) {
      const reply = await admin.get<{ errors: Array<{ path: string }> }>(`/v1/projects?offset=${offset}`);
      expect(reply.status, offset).toBe(400);
      expect(reply.text).not.toMatch(/bigint|out of range for type|SQLSTATE/i);
    }
  });

  it('answers an undeclared method with 405 and Allow on the management API', async () => {
    for (const method of ['PUT', 'PATCH', 'QUERY']) {
      const reply = await fetch(`${t.baseUrl}/v1/projects`, { method, headers: { authorization: `Bearer ${admin.token}` } });
      expect(reply.status, method).toBe(405);
      expect(reply.headers.get('allow'), method).toBe('GET, HEAD, POST');
      expect(reply.headers.get('content-type')).toContain('application/problem+json');
    }
    const health = await fetch(`${t.baseUrl}/healthz`, { method: 'DELETE' });
    expect(health.status).toBe(405);
    expect(health.headers.get('allow')).toBe('GET, HEAD');
    expect((await fetch(`${t.baseUrl}/v1/no-such-thing`, { method: 'DELETE' })).status).toBe(404);
  });

  it('counts password length in characters (code points), as minLength in the OpenAPI does', async () => {
    const tenant = await createTenant(t, 'Passwords');
    const app = await createTodoApp(tenant);
    await publish(tenant, app.id);
    const apiUrl = `${t.baseUrl}${t.config.appsPath}/${app.id}/api/v${app.serverVersion}`;
    const signup = (email: string, password: string) =>
      fetch(`${apiUrl}/auth/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'P', email, password }),
      });
    // Four emoji are eight UTF-16 units but four characters.
    expect((await signup('emoji@pw.test', '😀😀😀😀')).status).toBe(422);
    expect((await signup('seven@pw.test', 'abcdefg')).status).toBe(422);
    expect((await signup('mixed@pw.test', '😀😀😀😀abcd')).status).toBe(201);
  });

  it('describes fields= answers in the version document: its own example validates, list and read', async () => {
    const tenant = await createTenant(t, 'Sparse');
    const app = await createTodoApp(tenant);
    await publish(tenant, app.id);
    const apiUrl = `${t.baseUrl}${t.config.appsPath}/${app.id}/api/v${app.serverVersion}`;
    const document = (await (await fetch(`${apiUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { parameters?: Array<{ name: string; example?: string }> }>>;
    };
    const example = document.paths['/toDos'].get.parameters!.find((p) => p.name === 'fields')!.example!;
    expect(example).toBe('title,user.id');
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    ajv.addSchema(document, 'app.json');
    const signup = await fetch(`${apiUrl}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'S', email: 'sparse@fields.test', password: 'correct horse battery' }),
    });
    const session = (await signup.json()) as { token: string; user: { id: string } };
    const headers = { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' };
    const created = await fetch(`${apiUrl}/toDos`, { method: 'POST', headers, body: JSON.stringify({ title: 'sparse', user: session.user.id }) });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: string }).id;
    const page = (await (await fetch(`${apiUrl}/toDos?fields=${example}`, { headers })).json()) as { items: Array<Record<string, unknown>> };
    expect(page.items.find((item) => item.id === id)).toEqual({ id, title: 'sparse', user: { id: session.user.id } });
    const listed = ajv.getSchema('app.json#/paths/~1toDos/get/responses/200/content/application~1json/schema')!;
    expect(listed(page), ajv.errorsText(listed.errors)).toBe(true);
    const one = await (await fetch(`${apiUrl}/toDos/${id}?fields=${example}`, { headers })).json();
    const read = ajv.getSchema('app.json#/paths/~1toDos~1{id}/get/responses/200/content/application~1json/schema')!;
    expect(read(one), ajv.errorsText(read.errors)).toBe(true);
    // A signed-in caller's verification request checks an email it gives (it was a 503 about mail).
    const verify = await fetch(`${apiUrl}/auth/verify/request`, { method: 'POST', headers, body: JSON.stringify({ email: 12345 }) });
    expect(verify.status).toBe(400);
    // The whole record still has its members required: a full answer missing one is refused.
    const whole = ajv.getSchema('app.json#/components/schemas/ToDo')!;
    expect(whole({ id })).toBe(false);
  });
});
