// Variables and secrets through the management API (DESIGN §11): the routes and members, project
// values and the application's own, and bad input (names, sizes, one name as both kinds) refused
// with a problem body and nothing stored.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';

interface Problem {
  status: number;
  detail: string;
  errors: Array<{ path: string; message: string }>;
}

describe.each(await availableDrivers())('variables and secrets, on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let appId: string;
  let app: string;
  let project: string;

  const rowCount = async () =>
    Number((await sql<{ n: number }>`select count(*)::int as n from appbuilder.config_values`.execute(t.platform.db.kysely)).rows[0].n);

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Config');
    appId = (await createTodoApp(tenant)).id;
    app = `/v1/applications/${appId}`;
    project = `/v1/projects/${tenant.projectId}`;
  }, 120_000);
  afterAll(async () => t?.close());

  it('creates (201), replaces (200), reads, lists and deletes (204) a variable', async () => {
    const created = await tenant.api.request<Record<string, unknown>>('PUT', `${app}/variables/API_URL`, { body: { value: 'https://one.example' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'API_URL', value: 'https://one.example', updatedBy: { type: 'apiClient' } });
    expect(typeof created.body.updatedAt).toBe('string');
    const replaced = await tenant.api.request('PUT', `${app}/variables/API_URL`, { body: { value: 'https://two.example' } });
    expect(replaced.status).toBe(200);
    expect((await tenant.api.get(`${app}/variables/API_URL`)).body).toMatchObject({ value: 'https://two.example' });
    const list = await tenant.api.get<{ items: Array<{ name: string }>; metadata: { total: number } }>(`${app}/variables`);
    expect(list.body.items.map((i) => i.name)).toEqual(['API_URL']);
    expect(list.body.metadata.total).toBe(1);
    expect((await tenant.api.request('DELETE', `${app}/variables/API_URL`)).status).toBe(204);
    expect((await tenant.api.get(`${app}/variables/API_URL`)).status).toBe(404);
    expect((await tenant.api.request('DELETE', `${app}/variables/API_URL`)).status).toBe(404);
  });

  it('never answers with a secret value; version counts the writes', async () => {
    const value = `sk-test-${Math.random().toString(36).slice(2)}`;
    const created = await tenant.api.request<Record<string, unknown>>('PUT', `${app}/secrets/PAYMENT_KEY`, { body: { value } });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['createdAt', 'name', 'updatedAt', 'updatedBy', 'version']);
    expect(created.body.version).toBe(1);
    const again = await tenant.api.request<Record<string, unknown>>('PUT', `${app}/secrets/PAYMENT_KEY`, { body: { value: `${value}-2` } });
    expect(again.status).toBe(200);
    expect(again.body.version).toBe(2);
    const one = await tenant.api.get(`${app}/secrets/PAYMENT_KEY`);
    const list = await tenant.api.get(`${app}/secrets`);
    for (const reply of [created, again, one, list]) expect(reply.text).not.toContain(value);
    // Stored sealed: the plain value is in no column.
    const stored = await sql<{ sealed_value: string }>`select sealed_value from appbuilder.config_values where name = 'PAYMENT_KEY'`.execute(t.platform.db.kysely);
    expect(stored.rows[0].sealed_value).toMatch(/^v2\./);
    expect(stored.rows[0].sealed_value).not.toContain(value);
  });

  it('holds project values under {projects_url} with the same routes', async () => {
    expect((await tenant.api.request('PUT', `${project}/variables/REGION`, { body: { value: 'eu' } })).status).toBe(201);
    expect((await tenant.api.request('PUT', `${project}/secrets/SHARED_TOKEN`, { body: { value: 'project-secret-value' } })).status).toBe(201);
    const vars = await tenant.api.get<{ items: Array<{ name: string; value: string }> }>(`${project}/variables`);
    expect(vars.body.items).toEqual([expect.objectContaining({ name: 'REGION', value: 'eu' })]);
    const secrets = await tenant.api.get(`${project}/secrets`);
    expect(secrets.text).not.toContain('project-secret-value');
  });

  it('refuses bad names (400), values over 64 KiB (400) and one name as both kinds (409), storing nothing', async () => {
    const before = await rowCount();
    for (const name of ['lower', '1ABC', 'A-B', `A${'B'.repeat(64)}`]) {
      const reply = await tenant.api.request<Problem>('PUT', `${app}/variables/${name}`, { body: { value: 'x' } });
      expect(reply.status, name).toBe(400);
      expect(reply.headers.get('content-type')).toContain('application/problem+json');
      expect(JSON.stringify(reply.body.errors)).toContain('name');
    }
    // 64 KiB of two-byte characters: under the character count, over the byte limit.
    const wide = 'é'.repeat(40_000);
    const big = await tenant.api.request<Problem>('PUT', `${app}/secrets/BIG`, { body: { value: wide } });
    expect(big.status).toBe(400);
    expect(big.body.errors[0]).toMatchObject({ path: '/value' });
    const tooLong = await tenant.api.request<Problem>('PUT', `${app}/variables/BIG`, { body: { value: 'x'.repeat(64 * 1024 + 1) } });
    expect(tooLong.status).toBe(400);
    expect((await tenant.api.request('PUT', `${app}/variables/EXACT`, { body: { value: 'x'.repeat(64 * 1024) } })).status).toBe(201);
    await tenant.api.request('DELETE', `${app}/variables/EXACT`);

    await tenant.api.request('PUT', `${app}/secrets/BOTH`, { body: { value: 'a secret' } });
    const both = await tenant.api.request<Problem>('PUT', `${app}/variables/BOTH`, { body: { value: 'plain' } });
    expect(both.status).toBe(409);
    expect(both.body.errors[0]).toMatchObject({ path: '/name' });
    // Across the project and its applications too.
    const inherited = await tenant.api.request<Problem>('PUT', `${app}/variables/SHARED_TOKEN`, { body: { value: 'plain' } });
    expect(inherited.status).toBe(409);
    expect(inherited.body.detail).toContain('project');
    const downward = await tenant.api.request<Problem>('PUT', `${project}/variables/BOTH`, { body: { value: 'plain' } });
    expect(downward.status).toBe(409);
    await tenant.api.request('DELETE', `${app}/secrets/BOTH`);
    expect(await rowCount()).toBe(before);
    expect((await tenant.api.get(`${app}/variables/BOTH`)).status).toBe(404);
    // A refused secret leaves no data key behind for an application that had none.
    const fresh = (await createTodoApp(tenant)).id;
    expect((await tenant.api.request('PUT', `/v1/applications/${fresh}/secrets/REGION`, { body: { value: 'x' } })).status).toBe(409);
    const keys = await sql<{ n: number }>`select count(*)::int as n from appbuilder.data_keys where owner_id = ${fresh}`.execute(t.platform.db.kysely);
    expect(Number(keys.rows[0].n)).toBe(0);
    expect((await tenant.api.request('PUT', `/v1/applications/${fresh}/secrets/FRESH`, { body: { value: 'x' } })).status).toBe(201);
    const made = await sql<{ n: number }>`select count(*)::int as n from appbuilder.data_keys where owner_id = ${fresh}`.execute(t.platform.db.kysely);
    expect(Number(made.rows[0].n)).toBe(1);
  });

  it("answers 404 for another customer's application and project", async () => {
    const other = await createTenant(t, 'Other');
    for (const path of [`${app}/variables`, `${app}/secrets/PAYMENT_KEY`, `${project}/variables`]) {
      expect((await other.api.get(path)).status, path).toBe(404);
    }
    expect((await other.api.request('PUT', `${app}/secrets/PAYMENT_KEY`, { body: { value: 'stolen' } })).status).toBe(404);
    expect((await other.api.request('DELETE', `${project}/variables/REGION`)).status).toBe(404);
    expect((await tenant.api.get(`${project}/variables/REGION`)).body).toMatchObject({ value: 'eu' });
  });

  it('documents the group in the management OpenAPI document', async () => {
    const doc = (await (await fetch(`${t.baseUrl}/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string; tags: string[] }>> };
    const put = doc.paths['/v1/applications/{applicationId}/secrets/{name}'].put;
    expect(put.operationId).toBe('setApplicationSecret');
    expect(put.tags).toEqual(['secrets-configuration']);
    expect(doc.paths['/v1/projects/{projectId}/variables'].get.operationId).toBe('listProjectVariables');
  });
});
