import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { BOOTSTRAP, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { ApiClient } from '../support/client.ts';

describe('conventions of every route', () => {
  let t: TestPlatform;
  let api: ApiClient;
  let log = '';

  beforeAll(async () => {
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => (log += chunk.toString()));
    t = await startTestPlatform('pglite', { bodyLimitBytes: 64 * 1024 }, stream);
    api = await ApiClient.login(t.baseUrl, { apiKey: BOOTSTRAP.id, secret: BOOTSTRAP.secret });
  });
  afterAll(() => t?.close());

  it('publishes OpenAPI 3.1 with the three security schemes required together', async () => {
    const reply = await fetch(`${t.baseUrl}/v1/openapi.json`);
    expect(reply.status).toBe(200);
    const spec = (await reply.json()) as {
      openapi: string;
      info: { version: string };
      components: { securitySchemes: Record<string, { type: string; flows?: { clientCredentials: { tokenUrl: string } } }> };
      paths: Record<string, Record<string, { operationId: string; security?: Array<Record<string, unknown>> }>>;
    };
    expect(spec.openapi).toBe('3.1.0');
    expect(spec.info.version).toBe('0.0.5');
    expect(Object.keys(spec.components.securitySchemes).sort()).toEqual(['apiClient', 'apiCredentials', 'builderBearer']);
    expect(spec.components.securitySchemes.apiCredentials.flows?.clientCredentials.tokenUrl).toBe('/v1/oauth/token');
    const operations = Object.values(spec.paths).flatMap((methods) => Object.values(methods));
    for (const op of operations) {
      expect(op.operationId).toMatch(/^[a-z][A-Za-z]+$/);
      if (op.operationId === 'createAccessToken') continue;
      expect(op.security, op.operationId).toEqual([{ builderBearer: [], apiClient: [], apiCredentials: [] }]);
    }
    expect(spec.paths['/v1/projects'].get.operationId).toBe('listProjects');
    expect(spec.paths['/v1/projects/{projectId}'].delete.operationId).toBe('deleteProject');
  });

  it('serves the API reference page with its own assets, no CDN', async () => {
    const page = await fetch(`${t.baseUrl}/v1/docs/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('swagger-ui');
    expect(html).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs|fonts\.googleapis)/);
    const asset = await fetch(`${t.baseUrl}/v1/docs/static/swagger-ui-bundle.js`);
    expect(asset.status).toBe(200);
  });

  it('answers health, readiness and Prometheus metrics', async () => {
    expect(await (await fetch(`${t.baseUrl}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${t.baseUrl}/readyz`)).json()).toEqual({ status: 'ready' });
    await api.get('/v1/projects');
    const metrics = await (await fetch(`${t.baseUrl}/metrics`)).text();
    expect(metrics).toContain('appbuilder_http_requests_total{route="/v1/projects",method="GET",status="200"}');
    expect(metrics).toContain('process_cpu_user_seconds_total');
  });

  it('refuses a body over the limit with 413 problem+json', async () => {
    const reply = await api.post<{ status: number }>('/v1/projects', { name: 'x'.repeat(70 * 1024) });
    expect(reply.status).toBe(413);
    expect(reply.headers.get('content-type')).toContain('application/problem+json');
  });

  it('answers unknown routes and malformed JSON with problem+json', async () => {
    const missing = await api.get('/v1/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
    const malformed = await api.request('POST', '/v1/projects', { rawBody: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('content-type')).toContain('application/problem+json');
  });

  it('logs requests without tokens, keys or secrets', async () => {
    const created = await api.post<{ secret: string; apiKey: string }>('/v1/api-clients', { name: 'logged' });
    await ApiClient.login(t.baseUrl, created.body);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(log).toContain('"url":"/v1/projects"');
    expect(log).not.toContain(api.token!);
    expect(log).not.toContain(created.body.secret);
    expect(log).not.toContain(BOOTSTRAP.secret);
    expect(log).not.toContain(`"x-svc-api-client":"${BOOTSTRAP.id}"`);
  });
});
