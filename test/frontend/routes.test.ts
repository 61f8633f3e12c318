/**
 * Spec endpoints 7 and 8 over HTTP (inject), on a real store and job queue. The
 * routes are mounted on their own Fastify instance with a stub principal, so this
 * test does not depend on how the integrator wires them into the server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { strFromU8, unzipSync } from 'fflate';
import { sql } from 'kysely';
import { openPglite, type Db } from '../../src/storage/db.ts';
import { migrateControlPlane } from '../../src/storage/migrate.ts';
import { JobStore } from '../../src/jobs/store.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { ApplicationService } from '../../src/services/applications/service.ts';
import { FrontendBundleService } from '../../src/services/frontend-bundles.ts';
import { IntegrationPromptService } from '../../src/services/integration-prompts.ts';
import { AppOrigins } from '../../src/tools/app-origin.ts';
import { frontendRoutes } from '../../src/api/routes/frontend.ts';
import { registerProblemHandlers } from '../../src/api/problem.ts';
import { validatorCompiler } from '../../src/api/validation.ts';
import type { Principal } from '../../src/services/tokens.ts';
import { createOwner, FAST, type Owner } from '../jobs/support.ts';
import { todoScode } from '../support/examples.ts';

let db: Db;
let queue: JobQueue;
let applications: ApplicationService;
let owner: Owner;
let other: Owner;
let jobRuns = 0;
let releaseJobs: Promise<void> = Promise.resolve();
const servers: FastifyInstance[] = [];

async function server(bundleWaitMs: number): Promise<FastifyInstance> {
  const bundles = new FrontendBundleService(db, applications, { chunkBytes: 4096, defaultAppUrl: (id) => `http://localhost:8080/apps/${id}` });
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  registerProblemHandlers(app);
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (request) => {
    request.principal = { customerId: String(request.headers['x-test-customer']) } as Principal;
  });
  await app.register(frontendRoutes({ prompts: new IntegrationPromptService(db, applications), bundles, appsPath: '/apps', publicUrl: null, origins: new AppOrigins({ appsDomain: 'localhost', publicUrl: null }, () => 8080), bundleWaitMs }), { prefix: '/v1' });
  servers.push(app);
  return app;
}

const get = (app: FastifyInstance, url: string, customer = owner) => app.inject({ method: 'GET', url, headers: { 'x-test-customer': customer.customerId } });

async function publish(applicationId: string, serverVersion: string): Promise<void> {
  await db.kysely
    .insertInto('appbuilder.deployments')
    .values({ application_id: applicationId, server_version: serverVersion, state: 'active', published_at: new Date() })
    .execute();
}

async function bundleJobs(applicationId: string): Promise<number> {
  const row = await db.kysely
    .selectFrom('appbuilder.jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('application_id', '=', applicationId)
    .where('job_type', '=', 'frontend_bundle')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

beforeAll(async () => {
  db = await openPglite(null);
  await migrateControlPlane(db);
  const jobs = new JobStore(db);
  queue = await JobQueue.start(db, jobs, { work: true, ...FAST });
  applications = new ApplicationService(db, jobs, queue, async () => {});
  const bundles = new FrontendBundleService(db, applications, { chunkBytes: 4096, defaultAppUrl: (id) => `http://localhost:8080/apps/${id}` });
  await queue.register('frontend_bundle', async (job) => {
    await releaseJobs;
    jobRuns++;
    return bundles.runJob(job);
  }, { retryLimit: 0 });
  owner = await createOwner(db);
  other = await createOwner(db);
});

afterAll(async () => {
  for (const app of servers) await app.close();
  await queue?.stop();
  await db?.close();
});

describe('integration prompts (spec endpoint 7)', () => {
  it('describes the saved definition, as not served, while nothing is published', async () => {
    const created = await applications.create(owner.customerId, { projectId: owner.projectId, name: 'To-do', scode: todoScode() });
    const app = await server(30_000);
    const reply = await get(app, `/v1/applications/${created.id}/integration-prompts`);
    expect(reply.statusCode).toBe(200);
    const body = reply.json<Record<string, string>>();
    expect(Object.keys(body).sort()).toEqual(['buildFrontend', 'connectToExistingApp', 'testApi']);
    expect(body.buildFrontend).toContain('Not served yet');
    // The application's own origin: a frontend runs in a browser, which resolves *.localhost.
    expect(body.testApi).toContain(`http://${created.id}.localhost:8080/api/v1.0.1/toDos`);

    await publish(created.id, '1.0.1');
    const published = (await get(app, `/v1/applications/${created.id}/integration-prompts`)).json<Record<string, string>>();
    expect(published.buildFrontend).not.toContain('Not served yet');
    expect(published.buildFrontend).toContain('is published and served');
    expect(published.buildFrontend).toContain(`http://${created.id}.localhost:8080/api/v1.0.1/openapi.json`);
  });

  it("is 404 for another customer's application", async () => {
    const created = await applications.create(owner.customerId, { projectId: owner.projectId, scode: todoScode() });
    const reply = await get(await server(30_000), `/v1/applications/${created.id}/integration-prompts`, other);
    expect(reply.statusCode).toBe(404);
    expect(reply.headers['content-type']).toContain('application/problem+json');
  });
});

describe('frontend bundle (spec endpoint 8)', () => {
  it('is 404 while nothing is published', async () => {
    const created = await applications.create(owner.customerId, { projectId: owner.projectId, scode: todoScode() });
    const reply = await get(await server(30_000), `/v1/applications/${created.id}/frontendBundle`);
    expect(reply.statusCode).toBe(404);
    expect(reply.json()).toMatchObject({ status: 404, detail: expect.stringContaining('published') });
    expect(await bundleJobs(created.id)).toBe(0);
  });

  it('builds the latest published version once, streams the zip, and serves the second download from the cache', async () => {
    const created = await applications.create(owner.customerId, { projectId: owner.projectId, name: 'To-do', scode: todoScode() });
    await publish(created.id, '1.0.1');
    const app = await server(30_000);
    const runsBefore = jobRuns;

    const first = await get(app, `/v1/applications/${created.id}/frontendBundle`);
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe('application/zip');
    expect(first.headers['content-disposition']).toBe('attachment; filename="to-do-1.0.1.zip"');
    expect(Number(first.headers['content-length'])).toBe(first.rawPayload.length);
    const entries = unzipSync(new Uint8Array(first.rawPayload));
    expect(Object.keys(entries)).toEqual(expect.arrayContaining(['index.html', 'app.js', 'styles.css', 'config.js', 'schema.js']));
    expect(strFromU8(entries['config.js'])).toContain(`export const API_BASE_URL = "http://localhost:80/apps/${created.id}/api/v1.0.1";`);
    // Stored in several chunks (4 KiB here): the download was streamed chunk by chunk.
    const chunks = await sql<{ n: number }>`select count(*)::int as n from appbuilder.frontend_bundle_chunks where application_id = ${created.id}`.execute(db.kysely);
    expect(chunks.rows[0].n).toBeGreaterThan(1);

    const second = await get(app, `/v1/applications/${created.id}/frontendBundle`);
    expect(second.statusCode).toBe(200);
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(jobRuns - runsBefore).toBe(1);
    expect(await bundleJobs(created.id)).toBe(1);

    const notModified = await app.inject({ method: 'GET', url: `/v1/applications/${created.id}/frontendBundle`, headers: { 'x-test-customer': owner.customerId, 'if-none-match': String(first.headers.etag) } });
    expect(notModified.statusCode).toBe(304);
  });

  it('answers 202 with Retry-After while the bundle is being built, without queueing twice', async () => {
    let release!: () => void;
    releaseJobs = new Promise((resolve) => (release = resolve));
    const created = await applications.create(owner.customerId, { projectId: owner.projectId, name: 'To-do', scode: todoScode() });
    await publish(created.id, '1.0.1');
    const app = await server(300);

    const pending = await get(app, `/v1/applications/${created.id}/frontendBundle`);
    expect(pending.statusCode).toBe(202);
    expect(pending.headers['retry-after']).toBe('5');
    const body = pending.json<{ status: number; jobId: string; serverVersion: string; detail: string }>();
    expect(body).toMatchObject({ status: 202, serverVersion: '1.0.1' });
    expect(body.detail).toContain('retry');
    const again = await get(app, `/v1/applications/${created.id}/frontendBundle`);
    expect(again.statusCode).toBe(202);
    expect(again.json<{ jobId: string }>().jobId).toBe(body.jobId);
    expect(await bundleJobs(created.id)).toBe(1);

    release();
    const done = await get(await server(30_000), `/v1/applications/${created.id}/frontendBundle`);
    expect(done.statusCode).toBe(200);
    expect(await bundleJobs(created.id)).toBe(1);
  });

  it('serves the version published last, each version built once', async () => {
    const created = await applications.create(owner.customerId, { projectId: owner.projectId, name: 'To-do', scode: todoScode() });
    await publish(created.id, '1.0.1');
    const app = await server(30_000);
    expect((await get(app, `/v1/applications/${created.id}/frontendBundle`)).headers['content-disposition']).toContain('to-do-1.0.1.zip');
    const changed = await applications.change(owner.customerId, created.id, (d) => ({ ...d, appDescription: 'Changed.' }));
    await publish(created.id, changed.serverVersion!);
    const next = await get(app, `/v1/applications/${created.id}/frontendBundle`);
    expect(next.headers['content-disposition']).toContain(`to-do-${changed.serverVersion}.zip`);
    expect(await bundleJobs(created.id)).toBe(2);
  });
});
