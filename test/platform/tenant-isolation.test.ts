/**
 * Tenant isolation: customer B calls every operation of the management API on
 * customer A's projects, applications and API clients. The operations are read
 * from the OpenAPI document the server publishes, so a route added later is
 * walked too. Every answer is 404 problem+json (never 403, never A's data), and
 * A's resources are exactly as they were. The same requests sent by A are
 * accepted, which shows that B's 404 comes from the ownership check and not
 * from a malformed request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { ApiClient } from '../support/client.ts';
import { createTenant, type AppReply, type Tenant } from '../support/tenant.ts';
import { todoScode } from '../support/examples.ts';
import { definitionEditBodies } from '../support/operation-bodies.ts';
import { concretePath, listOperations, sampleOf, send, type Operation } from '../support/openapi.ts';

const drivers = await availableDrivers();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Path parameters that name a resource of a customer: an operation with one of them is walked. */
const OWNED = ['projectId', 'applicationId', 'apiClientId'];
const APP_NAME = 'Tenant A secret to-do app';
/** Changes that need a served version: A's control request goes to its published application. */
const NEEDS_PUBLISHED = ['explainRequest', 'unpublishApplication'];

/** Valid bodies, so a refusal cannot be a 400 for the body; operations not listed get a sample of their schema. */
function bodies(projectId: string, applicationId = ''): Record<string, unknown> {
  return {
    ...definitionEditBodies(projectId),
    createApplication: { projectId, name: 'Stolen', scode: todoScode() },
    replaceApplicationDefinition: { ...todoScode(), appDescription: 'Replaced by B' },
    updateProject: { name: 'Renamed by B' },
    putApplicationWebhook: { url: 'https://hooks.example.com/appbuilder' },
    postAssistantMessage: { content: 'add a text field note to to-dos', applicationId },
    // No such attachment: A gets 422 for it, B the 404 of a project it does not own.
    createFigmaImport: { attachmentId: '01900000-0000-7000-8000-000000000000' },
  };
}

function bodyFor(op: Operation, { projectId, applicationId }: { projectId: string; applicationId: string }): unknown {
  const known = bodies(projectId, applicationId);
  if (op.operationId in known) return known[op.operationId];
  return op.bodySchema ? sampleOf(op.bodySchema) : undefined;
}

const headersOf = (api: ApiClient) => ({ authorization: `Bearer ${api.token}`, 'x-svc-api-client': api.apiKey ?? '' });

interface Resources {
  projectId: string;
  applicationId: string;
  apiClientId: string;
}

/** Sample values of the definition's path parameters (the to-do example's ids, its first version). */
const paramsOf = (r: Resources): Record<string, string> => ({
  ...r,
  modelId: 'urn:svc:model:todo',
  fieldId: 'urn:svc:edge:todo-title',
  actionId: 'urn:svc:action:complete-todo',
  triggerId: 'urn:svc:trigger:complete-todo',
  serverVersion: '1.0.1',
  from: '1.0.1',
  to: '1.0.1',
});

describe.each(drivers)('tenant isolation (%s)', (driver) => {
  let t: TestPlatform;
  let a: Tenant;
  let b: Tenant;
  let own: Resources;
  let operations: Operation[];
  const aApps: string[] = [];

  async function newApp(projectId: string): Promise<string> {
    const reply = await a.api.post<AppReply>('/v1/applications', { projectId, name: APP_NAME, scode: todoScode() });
    expect(reply.status, reply.text).toBe(201);
    aApps.push(reply.body.id);
    return reply.body.id;
  }

  /** Waits until none of A's applications has a queued or running job. */
  async function settle(): Promise<void> {
    for (let i = 0; i < 240; i++) {
      const busy = await Promise.all(
        aApps.map(async (id) => {
          const reply = await a.api.get<{ jobs: Array<{ status: string }> }>(`/v1/applications/${id}/status`);
          return reply.status === 200 && reply.body.jobs.some((j) => j.status === 'queued' || j.status === 'running');
        }),
      );
      if (!busy.includes(true)) return;
      await sleep(250);
    }
    throw new Error("A's jobs did not finish");
  }

  /** Everything of A that B could change, as A sees it. */
  async function snapshotOfA() {
    const app = await a.api.get<AppReply>(`/v1/applications/${own.applicationId}`);
    const versions = await a.api.get<{ metadata: { total: number } }>(`/v1/applications/${own.applicationId}/versions?limit=1000`);
    const project = await a.api.get(`/v1/projects/${own.projectId}`);
    const apps = await a.api.get(`/v1/applications?projectId=${own.projectId}`);
    const clients = await a.api.get('/v1/api-clients');
    for (const reply of [app, versions, project, apps, clients]) expect(reply.status).toBe(200);
    return { app: app.body, versions: versions.body, project: project.body, apps: apps.body, clients: clients.body };
  }

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    a = await createTenant(t, 'Tenant A');
    b = await createTenant(t, 'Tenant B');
    const client = await a.api.post<{ id: string }>('/v1/api-clients', { name: 'A second client' });
    expect(client.status).toBe(201);
    own = { projectId: a.projectId, applicationId: await newApp(a.projectId), apiClientId: client.body.id };
    // Published and with its frontend bundle built, so publish, unpublish and frontendBundle have something to act on.
    expect((await a.api.post(`/v1/applications/${own.applicationId}/publish`, {})).status).toBe(202);
    await settle();
    let bundled = 0;
    for (let i = 0; i < 60 && bundled !== 200; i++) {
      const bundle = await send(t.baseUrl, { method: 'GET' } as Operation, `/v1/applications/${own.applicationId}/frontendBundle`, headersOf(a.api));
      bundled = bundle.status;
      if (bundled !== 200) expect(bundled, bundle.text).toBe(202);
      if (bundled !== 200) await sleep(500);
    }
    expect(bundled).toBe(200);
    // A webhook, so reading and deleting it has something to act on.
    expect((await a.api.put(`/v1/applications/${own.applicationId}/webhook`, { url: 'https://hooks.example.com/a' })).status).toBe(201);
    await settle();
    operations = (await listOperations(t.baseUrl)).filter((op) => op.secured);
  });
  afterAll(async () => {
    if (a) await settle().catch(() => {});
    await t?.close();
  });

  const walked = () => operations.filter((op) => op.params.some((p) => OWNED.includes(p)));

  it("answers 404 to every operation on A's resources, and A's resources are unchanged", async () => {
    expect(walked().map((op) => op.operationId)).toEqual(
      expect.arrayContaining([
        'getProject', 'updateProject', 'deleteProject', 'deleteApiClient', 'getApplication', 'deleteApplication',
        'replaceApplicationDefinition', 'updateModel', 'modifyEffects', 'listVersions', 'diffVersions', 'restoreVersion',
        'generateModels', 'getApplicationStatus', 'publishApplication', 'unpublishApplication', 'getIntegrationPrompts',
        'getFrontendBundle', 'createTrigger', 'replaceAppDraft',
      ]),
    );
    const before = await snapshotOfA();
    expect(before.versions.metadata.total).toBe(1);

    const secrets = [APP_NAME, 'Tenant A project', 'A second client', 'Only the owner can complete', 'urn:svc:edge:user-email'];
    // Destructive operations last, so that a leak in one of them cannot hide a leak in another.
    const ordered = [...walked()].sort((x, y) => Number(x.method === 'DELETE') - Number(y.method === 'DELETE'));
    for (const op of ordered) {
      // A variable's or secret's name: any valid one, the application is what B may not reach.
      const path = concretePath(op.path, { ...paramsOf(own), name: 'SAMPLE_NAME' });
      const reply = await send(t.baseUrl, op, path, headersOf(b.api), bodyFor(op, own));
      const label = `${op.method} ${op.path} (${op.operationId}): ${reply.text.slice(0, 200)}`;
      expect(reply.status, label).toBe(404);
      expect(reply.contentType, label).toContain('application/problem+json');
      for (const secret of secrets) expect(reply.text, label).not.toContain(secret);
    }

    // Creating an application in A's project, and listing A's project's applications.
    const created = await b.api.post('/v1/applications', bodies(own.projectId).createApplication);
    expect(created.status).toBe(404);
    expect(created.headers.get('content-type')).toContain('application/problem+json');
    const listed = await b.api.get(`/v1/applications?projectId=${own.projectId}`);
    expect(listed.status).toBe(404);
    expect(listed.text).not.toContain(APP_NAME);

    await settle();
    const after = await snapshotOfA();
    expect(after).toEqual(before);
    // A's second client still works: B's delete did not revoke it.
    expect((await a.api.get<{ items: Array<{ id: string }> }>('/v1/api-clients')).body.items.map((c) => c.id)).toContain(own.apiClientId);
  });

  it("shows none of A's resources in B's lists", async () => {
    const lists = operations.filter((op) => op.method === 'GET' && op.params.length === 0);
    expect(lists.map((op) => op.operationId)).toEqual(expect.arrayContaining(['listProjects', 'listApplications', 'listApiClients']));
    for (const op of lists) {
      const reply = await send(t.baseUrl, op, op.path, headersOf(b.api));
      expect(reply.status, op.operationId).toBe(200);
      for (const id of [own.projectId, own.applicationId, own.apiClientId, APP_NAME]) expect(reply.text, op.operationId).not.toContain(id);
    }
  });

  it('accepts the same requests from A (so the 404s above are about ownership)', async () => {
    // Unpublishing last: the reads (frontendBundle) and explain need the served version.
    const ordered = [...walked()].sort((x, y) => NEEDS_PUBLISHED.indexOf(x.operationId) - NEEDS_PUBLISHED.indexOf(y.operationId));
    for (const op of ordered) {
      const unknown = op.params.filter((p) => !(p in paramsOf(own)));
      if (unknown.length > 0) continue; // no sample of A's for this parameter: A would get 404 too
      // Its body names a backup of the application, which the fresh one below has none of (A's own restore: test/backups/).
      if (op.operationId === 'restoreApplication') continue;
      // Reads use A's published application; changes each get fresh resources, so one cannot spoil the next.
      let resources = own;
      if (op.method !== 'GET' && !NEEDS_PUBLISHED.includes(op.operationId)) {
        const project = await a.api.post<{ id: string }>('/v1/projects', { name: 'Tenant A project (control)' });
        const client = await a.api.post<{ id: string }>('/v1/api-clients', { name: 'control' });
        resources = { projectId: project.body.id, applicationId: await newApp(project.body.id), apiClientId: client.body.id };
        if (op.operationId === 'deleteApplicationWebhook') {
          const hook = await a.api.put(`/v1/applications/${resources.applicationId}/webhook`, { url: 'https://hooks.example.com/a' });
          expect(hook.status).toBe(201);
        }
      }
      const reply = await send(t.baseUrl, op, concretePath(op.path, paramsOf(resources)), headersOf(a.api), bodyFor(op, resources));
      const label = `${op.method} ${op.path} (${op.operationId}) as A: ${reply.status} ${reply.text.slice(0, 300)}`;
      expect([400, 401, 403, 404], label).not.toContain(reply.status);
      expect(reply.status, label).toBeLessThan(500);
    }
    const created = await a.api.post('/v1/applications', bodies(own.projectId).createApplication);
    expect(created.status).toBe(201);
    aApps.push((created.body as { id: string }).id);
    await settle();
  });
});
