import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { BOOTSTRAP, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { ApiClient } from '../support/client.ts';
import { todoScode } from '../support/examples.ts';

const drivers = await availableDrivers();

interface ApplicationBody {
  id: string;
  name?: string;
  scode: Record<string, unknown>;
  projectId: string;
  status: { jobs: unknown[]; appUrl?: string };
  isActive: boolean;
  serverVersion?: string;
  lastPublishedAt?: string;
  lastUnpublishedAt?: string;
}

describe.each(drivers)('applications, core (%s)', (driver) => {
  let t: TestPlatform;
  let api: ApiClient;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    const admin = await ApiClient.login(t.baseUrl, { apiKey: BOOTSTRAP.id, secret: BOOTSTRAP.secret });
    const customer = await admin.post<{ apiClient: { apiKey: string; secret: string } }>('/v1/customers', { name: 'Apps Inc' });
    api = await ApiClient.login(t.baseUrl, customer.body.apiClient);
    projectId = (await api.post<{ id: string }>('/v1/projects', { name: 'P' })).body.id;
  });
  afterAll(() => t?.close());

  it('creates an application and answers the whole Application', async () => {
    const scode = todoScode();
    const created = await api.post<ApplicationBody>('/v1/applications', { projectId, name: 'To-do', scode });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'To-do',
      scode,
      projectId,
      // The application's own origin (docs/security.md, "Origins").
      status: { jobs: [], deployments: [], migrations: [], appUrl: expect.stringMatching(/^http:\/\/[0-9a-f-]{36}\.localhost:\d+$/) },
      isActive: false,
      serverVersion: '1.0.1',
    });
    expect(created.body.status.appUrl).toBe(t.platform.origins.of(created.body.id));
    const got = await api.get<ApplicationBody>(`/v1/applications/${created.body.id}`);
    expect(got.body).toEqual(created.body);
  });

  it('preserves unknown members of the definition', async () => {
    const scode = { ...todoScode(), extraMember: { kept: true } };
    const created = await api.post<ApplicationBody>('/v1/applications', { projectId, scode });
    expect(created.status).toBe(201);
    expect(created.body.scode.extraMember).toEqual({ kept: true });
    expect(created.body.name).toBeUndefined();
  });

  it('rejects a malformed definition with 400 naming every JSON pointer', async () => {
    const scode = todoScode();
    const models = scode.models as Array<{ fields: Array<Record<string, unknown>>; id: string }>;
    models[0].fields[0].min = 'one';
    models[1].id = 'model-without-prefix';
    delete (scode as Record<string, unknown>).triggers;
    const reply = await api.post<{ status: number; errors: Array<{ path: string; message: string }> }>('/v1/applications', { projectId, scode });
    expect(reply.status).toBe(400);
    expect(reply.headers.get('content-type')).toContain('application/problem+json');
    const paths = reply.body.errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['/scode/models/0/fields/0/min', '/scode/models/1/id', '/scode/triggers']));
  });

  it('answers 404 for an unknown project', async () => {
    const reply = await api.post('/v1/applications', { projectId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', scode: todoScode() });
    expect(reply.status).toBe(404);
  });

  it('lists applications by project, replaces the definition, reports status and deletes', async () => {
    const other = (await api.post<{ id: string }>('/v1/projects', { name: 'Other' })).body.id;
    const app = await api.post<ApplicationBody>('/v1/applications', { projectId: other, name: 'Listed', scode: todoScode() });
    const list = await api.get<{ items: ApplicationBody[]; metadata: { total: number } }>(`/v1/applications?projectId=${other}`);
    expect(list.body.metadata.total).toBe(1);
    expect(list.body.items[0].id).toBe(app.body.id);
    const all = await api.get<{ metadata: { total: number } }>('/v1/applications');
    expect(all.body.metadata.total).toBeGreaterThanOrEqual(3);

    const scode = todoScode();
    scode.appDescription = 'Changed description';
    const replaced = await api.put<ApplicationBody>(`/v1/applications/${app.body.id}/scode`, scode);
    expect(replaced.status).toBe(200);
    expect(replaced.body.scode.appDescription).toBe('Changed description');
    expect(replaced.body.serverVersion).not.toBe(app.body.serverVersion);

    const status = await api.get<{ jobs: unknown[] }>(`/v1/applications/${app.body.id}/status`);
    expect(status.status).toBe(200);
    expect(status.body).toEqual({ jobs: [] });

    expect((await api.delete(`/v1/applications/${app.body.id}`)).status).toBe(204);
    expect((await api.get(`/v1/applications/${app.body.id}`)).status).toBe(404);
    expect((await api.delete(`/v1/applications/${app.body.id}`)).status).toBe(404);
  });
});
