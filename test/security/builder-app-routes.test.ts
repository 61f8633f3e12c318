// A builder token on a generated application's own routes and realtime, as the attacker of the
// review used it: a `viewer` created and edited the end users' records (201/200), and an editor
// limited to project P1 listed every user of an application of P2 (200, while the management API
// answers 404) and opened its realtime stream. Management credentials are now checked there as on
// the management API: outside the token's projects → 404, a viewer reads only → 403 on writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type AppReply, type Tenant } from '../support/tenant.ts';
import { publish, todoScodeWithoutEvents, ServedApi, type Page, type Rec } from '../runtime/served-app.ts';
import { SseClient, upgradeStatus } from '../realtime/clients.ts';
import { addBuilder, type TestBuilder } from '../access/builders-support.ts';

describe.each(await availableDrivers())('builder credentials on generated-app routes (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let p2App: string;
  let viewer: TestBuilder;
  let scopedEditor: TestBuilder;
  let ann: { token: string; user: Rec };
  let annTodo: Rec;
  const streams: SseClient[] = [];

  const as = (b: TestBuilder) => ({ authorization: `Bearer ${b.token}`, 'x-svc-api-client': tenant.api.apiKey! });
  const appPath = (path: string) => `${t.config.appsPath}/${api.applicationId}/api/v${api.serverVersion}${path}`;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Victim');
    // P1 is the tenant's first project; the application attacked lives in P2.
    const p2 = await tenant.api.post<{ id: string }>('/v1/projects', { name: 'P2' });
    const created = await tenant.api.post<AppReply>('/v1/applications', { projectId: p2.body.id, name: 'P2 app', scode: todoScodeWithoutEvents() });
    expect(created.status, created.text).toBe(201);
    p2App = created.body.id;
    await publish(tenant, p2App);
    api = new ServedApi(t, tenant, p2App, created.body.serverVersion);
    ann = await api.signup('Ann', 'ann@example.test');
    annTodo = (await api.post('/toDos', { title: "Ann's", status: 'open', user: ann.user.id }, ann.token)).body;
    viewer = await addBuilder(tenant.api, 'viewer');
    scopedEditor = await addBuilder(tenant.api, 'editor', [tenant.projectId]);
  }, 120_000);
  afterAll(async () => {
    for (const s of streams) s.close();
    await t?.close();
  });

  it("a viewer cannot create or edit the end users' records (403 naming the editor role)", async () => {
    const attempts = [
      await viewer.api.request('POST', appPath('/users'), { body: { name: 'Mallory', email: 'mallory@example.test' } }),
      await viewer.api.request('PATCH', appPath(`/users/${ann.user.id}`), { body: { name: 'Mallory' } }),
      await viewer.api.request('POST', appPath('/toDos'), { body: { title: 'planted', status: 'open', user: ann.user.id } }),
      await viewer.api.request('PATCH', appPath(`/toDos/${annTodo.id}`), { body: { title: 'defaced' } }),
      await viewer.api.request('DELETE', appPath(`/toDos/${annTodo.id}`)),
      await viewer.api.request('POST', appPath('/auth/signup'), { body: { name: 'Eve', email: 'eve@example.test', password: 'correct horse' } }),
    ];
    for (const reply of attempts) {
      expect(reply.status, reply.text).toBe(403);
      expect(reply.headers.get('content-type')).toContain('application/problem+json');
      expect(reply.text).toContain('needs the editor role');
    }
    // Nothing changed: the end users and their records are as they were.
    const users = await api.get<Page>('/users', 'admin');
    expect(users.body.items.map((u) => u.name)).toEqual(['Ann']);
    const todo = await api.get(`/toDos/${annTodo.id}`, 'admin');
    expect(todo.status).toBe(200);
    expect(todo.body.title).toBe("Ann's");
    // Reading is what a viewer may do.
    expect((await viewer.api.request('GET', appPath('/users'))).status).toBe(200);
  });

  it('an editor limited to P1 neither lists the users of a P2 application nor opens its realtime stream (404, as the management API)', async () => {
    const management = await scopedEditor.api.get(`/v1/applications/${p2App}`);
    expect(management.status).toBe(404);
    const list = await scopedEditor.api.request<{ detail: string }>('GET', appPath('/users'));
    expect(list.status, list.text).toBe(404);
    expect(list.headers.get('content-type')).toContain('application/problem+json');
    expect(list.text).not.toContain('ann@example.test');
    const write = await scopedEditor.api.request('PATCH', appPath(`/users/${ann.user.id}`), { body: { name: 'Mallory' } });
    expect(write.status, write.text).toBe(404);
    const stream = await SseClient.open(`${api.base}/realtime?subscribe=users`, as(scopedEditor));
    streams.push(stream);
    expect(stream.status, stream.body).toBe(404);
    expect(await upgradeStatus(`${api.base}/realtime/ws?subscribe=users`, as(scopedEditor))).toBe(404);
  });

  it("another customer's own API client (an owner) finds nothing either: 404 on the routes and the stream", async () => {
    const other = await createTenant(t, 'Other customer');
    const headers = { authorization: `Bearer ${other.api.token}`, 'x-svc-api-client': other.api.apiKey! };
    const list = await other.api.request('GET', appPath('/users'));
    expect(list.status, list.text).toBe(404);
    expect(list.text).not.toContain('ann@example.test');
    expect((await other.api.request('POST', appPath('/toDos'), { body: { title: 'planted', status: 'open', user: ann.user.id } })).status).toBe(404);
    const stream = await SseClient.open(`${api.base}/realtime?subscribe=users`, headers);
    streams.push(stream);
    expect(stream.status, stream.body).toBe(404);
  });
});
