import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { availableDrivers } from '../support/databases.ts';
import { BOOTSTRAP, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { ApiClient } from '../support/client.ts';
import { todoScode } from '../support/examples.ts';

const drivers = await availableDrivers();

interface ProjectBody {
  id: string;
  name: string;
  components: string[];
}

describe.each(drivers)('projects (%s)', (driver) => {
  let t: TestPlatform;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    const admin = await ApiClient.login(t.baseUrl, { apiKey: BOOTSTRAP.id, secret: BOOTSTRAP.secret });
    const customer = await admin.post<{ apiClient: { apiKey: string; secret: string } }>('/v1/customers', { name: 'Projects Inc' });
    api = await ApiClient.login(t.baseUrl, customer.body.apiClient);
  });
  afterAll(() => t?.close());

  it('creates, reads, updates and lists projects with paging', async () => {
    const created = await api.post<ProjectBody>('/v1/projects', { name: 'Alpha', components: ['frontend'] });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Alpha', components: ['frontend'] });
    const plain = await api.post<ProjectBody>('/v1/projects', { name: 'Beta' });
    expect(plain.body.components).toEqual([]);
    await api.post('/v1/projects', { name: 'Gamma' });

    const got = await api.get<ProjectBody>(`/v1/projects/${created.body.id}`);
    expect(got.body).toEqual(created.body);
    const patched = await api.patch<ProjectBody>(`/v1/projects/${created.body.id}`, { name: 'Alpha 2' });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...created.body, name: 'Alpha 2' });

    const page1 = await api.get<{ items: ProjectBody[]; metadata: { total: number } }>('/v1/projects?limit=2');
    expect(page1.body.metadata.total).toBe(3);
    expect(page1.body.items.map((p) => p.name)).toEqual(['Alpha 2', 'Beta']);
    expect(Object.keys(page1.body.items[0]).sort()).toEqual(['components', 'id', 'name']);
    const page2 = await api.get<{ items: ProjectBody[] }>('/v1/projects?limit=2&offset=2');
    expect(page2.body.items.map((p) => p.name)).toEqual(['Gamma']);
  });

  it('rejects bad input with a problem naming the path', async () => {
    const missing = await api.post<{ errors: Array<{ path: string }> }>('/v1/projects', {});
    expect(missing.status).toBe(400);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
    expect(missing.body.errors.map((e) => e.path)).toContain('/name');
    const badLimit = await api.get('/v1/projects?limit=5000');
    expect(badLimit.status).toBe(400);
    const badId = await api.get<{ errors: Array<{ path: string }> }>('/v1/projects/not-a-uuid');
    expect(badId.status).toBe(400);
    expect(badId.body.errors[0].path).toBe('/projectId');
    const unknown = await api.get('/v1/projects/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b');
    expect(unknown.status).toBe(404);
    const emptyPatch = await api.patch(`/v1/projects/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b`, {});
    expect(emptyPatch.status).toBe(400);
  });

  it('deletes a project with its applications and their data, and answers 204', async () => {
    const project = await api.post<ProjectBody>('/v1/projects', { name: 'Doomed' });
    const app = await api.post<{ id: string }>('/v1/applications', { projectId: project.body.id, name: 'To-do', scode: todoScode() });
    expect(app.status).toBe(201);
    // Stand-in for the app's generated data: a schema named as the runtime names it.
    const { schemaNameForApp } = await import('../../src/definition/naming.ts');
    const schema = schemaNameForApp(app.body.id);
    await sql.raw(`create schema "${schema}"`).execute(t.platform.db.kysely);
    await sql.raw(`create table "${schema}".rows (id int)`).execute(t.platform.db.kysely);
    const deleted = await api.delete(`/v1/projects/${project.body.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api.get(`/v1/projects/${project.body.id}`)).status).toBe(404);
    expect((await api.get(`/v1/applications/${app.body.id}`)).status).toBe(404);
    const schemas = await sql<{ n: number }>`select count(*)::int as n from information_schema.schemata where schema_name = ${schema}`.execute(
      t.platform.db.kysely,
    );
    expect(schemas.rows[0].n).toBe(0);
    const versions = await sql<{ n: number }>`select count(*)::int as n from appbuilder.application_versions where application_id = ${app.body.id}`.execute(
      t.platform.db.kysely,
    );
    expect(versions.rows[0].n).toBe(0);
  });
});
