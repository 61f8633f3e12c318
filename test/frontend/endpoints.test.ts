/**
 * Spec endpoints 7 (integration prompts) and 8 (frontend bundle) end to end over the
 * real server, on PGlite and PostgreSQL: credentials, tenant scoping, the published
 * to-do example described in every prompt, prompts following a new published
 * version, and the bundle built by a `frontend_bundle` job once per version.
 * Downloads do not wait for the build (bundleWaitSeconds 0), so the first answer is
 * 202 by construction.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { strFromU8, unzipSync } from 'fflate';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { resourceName } from '../../src/definition/naming.ts';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { apiPath, downloadBundle, publishAndWait } from './published.ts';

const drivers = await availableDrivers();
const KINDS = ['buildFrontend', 'testApi', 'connectToExistingApp'] as const;
type Prompts = Record<(typeof KINDS)[number], string>;

/** Every resource path, field name and HTTP trigger path of a definition. */
function namesOf(definition: AppDefinition): string[] {
  return [
    ...definition.models.flatMap((model) => [`/${resourceName(model.name)}`, ...model.fields.map((field) => `\`${field.name}\``)]),
    ...definition.triggers.flatMap((t) => (t.trigger.type === 'http' ? [t.trigger.path] : [])),
  ];
}

describe.each(drivers)('integration prompts and frontend bundle over the real server (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let other: Tenant;
  let app: AppReply;
  const url = (path: string) => `/v1/applications/${app.id}/${path}`;
  const bundleJobs = async (applicationId = app.id) =>
    (await tenant.api.get<AppReply>(`/v1/applications/${applicationId}`)).body.status.jobs.filter((job) => job.jobType === 'frontend_bundle');

  beforeAll(async () => {
    t = await startTestPlatform(driver, { bundleWaitSeconds: 0 });
    tenant = await createTenant(t, 'Owner');
    other = await createTenant(t, 'Other');
    app = await createTodoApp(tenant);
  }, 60_000);
  afterAll(() => t?.close());

  it('lists both operations in the OpenAPI document, under the management security', async () => {
    const spec = (await (await fetch(`${t.baseUrl}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string; security: unknown }>>;
    };
    const security = [{ builderBearer: [], apiClient: [], apiCredentials: [] }];
    expect(spec.paths['/v1/applications/{applicationId}/integration-prompts'].get).toMatchObject({ operationId: 'getIntegrationPrompts', security });
    expect(spec.paths['/v1/applications/{applicationId}/frontendBundle'].get).toMatchObject({ operationId: 'getFrontendBundle', security });
  });

  it('answers 401 without credentials', async () => {
    for (const path of ['integration-prompts', 'frontendBundle']) {
      const reply = await fetch(`${t.baseUrl}${url(path)}`);
      expect(reply.status, path).toBe(401);
      expect(reply.headers.get('content-type'), path).toContain('application/problem+json');
    }
  });

  it("answers 404 for another customer's application", async () => {
    for (const path of ['integration-prompts', 'frontendBundle']) {
      const reply = await other.api.get<{ status: number }>(url(path));
      expect(reply.status, path).toBe(404);
      expect(reply.headers.get('content-type'), path).toContain('application/problem+json');
    }
  });

  it('answers the bundle with a 404 problem while nothing is published, and queues no job', async () => {
    const reply = await tenant.api.get<{ status: number; title: string; detail: string }>(url('frontendBundle'));
    expect(reply.status).toBe(404);
    expect(reply.headers.get('content-type')).toContain('application/problem+json');
    expect(reply.body).toMatchObject({ status: 404, detail: expect.stringMatching(/published.*publish one/) });
    expect(await bundleJobs()).toEqual([]);
  });

  it('describes the saved definition as not served while nothing is published', async () => {
    const reply = await tenant.api.get<Prompts>(url('integration-prompts'));
    expect(reply.status).toBe(200);
    for (const kind of KINDS) expect(reply.body[kind], kind).toContain('Not served yet');
  });

  it('describes every resource, field and trigger path of the published to-do example in each prompt', async () => {
    await publishAndWait(t, tenant, app.id, app.serverVersion);
    const reply = await tenant.api.get<Prompts>(url('integration-prompts'));
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual([...KINDS].sort());
    // The prompts give the application's own origin (a frontend runs in a browser).
    const base = `${t.platform.origins.of(app.id)}/api/v${app.serverVersion}`;
    const names = namesOf(app.scode);
    expect(names).toEqual(expect.arrayContaining(['/toDos', '/users', '`title`', '`deadline`', '`todos`', '/toDos/:id/complete']));
    for (const kind of KINDS) {
      const text = reply.body[kind];
      expect(text, kind).not.toContain('Not served yet');
      expect(text, kind).toContain(`${base}/openapi.json`);
      for (const name of names) expect(text, `${kind}: ${name}`).toContain(name);
    }
  }, 90_000);

  it('queues a frontend_bundle job (202), then streams the zip; the second download comes from the cache', async () => {
    const first = await tenant.api.get<{ status: number; jobId: string; serverVersion: string }>(url('frontendBundle'));
    expect(first.status).toBe(202);
    expect(first.headers.get('retry-after')).toBe('5');
    expect(first.body).toMatchObject({ status: 202, serverVersion: app.serverVersion, jobId: expect.any(String) });

    const download = await downloadBundle(tenant, app.id);
    expect(download.headers.get('content-type')).toBe('application/zip');
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="to-do-${app.serverVersion}.zip"`);
    expect(Number(download.headers.get('content-length'))).toBe(download.bytes.length);
    const entries = unzipSync(download.bytes);
    expect(Object.keys(entries)).toEqual(expect.arrayContaining(['index.html', 'config.js', 'schema.js', 'app.js', 'styles.css', 'README.md']));
    expect(strFromU8(entries['config.js'])).toContain(`export const API_BASE_URL = "${t.baseUrl}${apiPath(t, app.id, app.serverVersion)}";`);
    expect(strFromU8(entries['index.html'])).toContain('<title>To-do</title>');

    const jobs = await bundleJobs();
    expect(jobs).toEqual([expect.objectContaining({ id: first.body.jobId, status: 'succeeded' })]);

    const second = await downloadBundle(tenant, app.id);
    expect(second.statuses).toEqual([200]);
    expect(Buffer.from(second.bytes).equals(Buffer.from(download.bytes))).toBe(true);
    expect(await bundleJobs()).toHaveLength(1);
  }, 90_000);

  it('follows the definition: a new field, published, changes the prompts and the bundle', async () => {
    const before = (await tenant.api.get<Prompts>(url('integration-prompts'))).body;
    const changed = await tenant.api.post<AppReply>(url('models/urn:svc:model:todo/fields'), { name: 'priority', to: 'p_NUMBER', min: 0, max: 1 });
    expect(changed.status, changed.text).toBe(200);
    const version = changed.body.serverVersion;
    expect(version).not.toBe(app.serverVersion);
    await publishAndWait(t, tenant, app.id, version);

    const after = (await tenant.api.get<Prompts>(url('integration-prompts'))).body;
    for (const kind of KINDS) {
      expect(before[kind], kind).not.toContain('`priority`');
      expect(after[kind], kind).toContain('`priority`');
      expect(after[kind], kind).toContain(`${t.platform.origins.of(app.id)}/api/v${version}`);
      for (const name of namesOf(changed.body.scode)) expect(after[kind], `${kind}: ${name}`).toContain(name);
    }

    const download = await downloadBundle(tenant, app.id);
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="to-do-${version}.zip"`);
    expect(strFromU8(unzipSync(download.bytes)['schema.js'])).toContain('"priority"');
    expect(await bundleJobs()).toHaveLength(2);
  }, 90_000);
});
