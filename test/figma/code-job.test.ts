// Issue 15 (part A): the figma_code_generation job end to end on both databases: 202 → poll →
// the zip downloaded and unzipped with fflate (index.html linking one page per frame, the pages,
// styles.css, the image fill's bytes under assets/), frames chosen by id (unknown ones 422 naming
// them), the job in the application's status when applicationId is given, 409 while the job is
// queued or running and 422 with its error when it failed. The file comes from a local double of
// the Figma API (imports-support.ts: a third-party service we cannot reach from here).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { GOOD_TOKEN, PNG, fixtureBytes, getCode, startFigmaDouble, text, unzipSite, waitForCode, withImageFill, type FigmaDouble, type ImportReply } from './imports-support.ts';

const FIXTURE = 'figmagic-design-system-template.json';
type Problem = { status: number; detail: string; errors: Array<{ path: string; message: string }> };
type Job = { id: string; jobType: string; status: string; projectId: string };

describe.each(await availableDrivers())('Figma code generation job (%s)', (driver) => {
  let t: TestPlatform;
  let a: Tenant;
  let b: Tenant;
  let figma: FigmaDouble;
  let imported: ImportReply;
  let imageFrameId: string;
  const saved = { url: process.env.APPBUILDER_FIGMA_API_URL, allow: process.env.APPBUILDER_HTTP_ALLOW };

  const base = () => `/v1/projects/${a.projectId}/figma/imports/${imported.id}`;
  const htmlPages = (site: Map<string, Uint8Array>) => [...site.keys()].filter((path) => path.endsWith('.html') && path !== 'index.html');

  beforeAll(async () => {
    const withImage = withImageFill(fixtureBytes(FIXTURE), 'img-hero');
    imageFrameId = withImage.frameId;
    figma = await startFigmaDouble({ figmagic: { json: withImage.json, images: { 'img-hero': PNG } } });
    process.env.APPBUILDER_FIGMA_API_URL = figma.url;
    process.env.APPBUILDER_HTTP_ALLOW = '127.0.0.1';
    t = await startTestPlatform(driver);
    a = await createTenant(t, 'Figma code A');
    b = await createTenant(t, 'Figma code B');
    expect((await a.api.request('PUT', `/v1/projects/${a.projectId}/secrets/FIGMA_TOKEN`, { body: { value: GOOD_TOKEN } })).status).toBe(201);
    const reply = await a.api.post<ImportReply>(`/v1/projects/${a.projectId}/figma/imports`, { fileKey: 'figmagic', tokenSecret: 'FIGMA_TOKEN' });
    expect(reply.status, reply.text).toBe(201);
    imported = reply.body;
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await figma?.close();
    for (const [name, value] of [['APPBUILDER_FIGMA_API_URL', saved.url], ['APPBUILDER_HTTP_ALLOW', saved.allow]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('generates every frame: 202 with a job, then a zip with index.html linking one page per frame and styles.css', async () => {
    const queued = await a.api.post<{ jobId: string }>(`${base()}/code`, {});
    expect(queued.status, queued.text).toBe(202);
    const reply = await waitForCode(a.api, a.projectId, imported.id, queued.body.jobId);
    expect(reply.status, reply.bytes.toString('utf8').slice(0, 300)).toBe(200);
    expect(reply.type).toBe('application/zip');
    const site = unzipSite(reply.bytes);
    expect(site.has('index.html')).toBe(true);
    expect(site.has('styles.css')).toBe(true);
    const pages = htmlPages(site);
    expect(pages.length).toBe(imported.frames.length);
    const index = text(site.get('index.html'));
    for (const page of pages) expect(index).toContain(`href="${page}"`);

    // The project's jobs show it, succeeded; another customer cannot download it.
    const jobs = await a.api.get<{ items: Job[] }>(`/v1/projects/${a.projectId}/jobs?jobType=figma_code_generation&limit=1000`);
    expect(jobs.body.items.find((j) => j.id === queued.body.jobId)).toMatchObject({ jobType: 'figma_code_generation', status: 'succeeded' });
    expect((await getCode(b.api, a.projectId, imported.id, queued.body.jobId)).status).toBe(404);
  });

  it('generates the chosen frames only, with the image fill fetched at import under assets/', async () => {
    const other = imported.frames.find((f) => f.nodeId !== imageFrameId)!;
    const queued = await a.api.post<{ jobId: string }>(`${base()}/code`, { frameIds: [imageFrameId, other.nodeId] });
    expect(queued.status, queued.text).toBe(202);
    const reply = await waitForCode(a.api, a.projectId, imported.id, queued.body.jobId);
    expect(reply.status).toBe(200);
    const site = unzipSite(reply.bytes);
    expect(htmlPages(site).length).toBe(2);
    const assets = [...site].filter(([path]) => path.startsWith('assets/'));
    expect(assets.some(([, bytes]) => Buffer.from(bytes).equals(PNG))).toBe(true);
  });

  it('refuses unknown frame ids with 422 naming each, and queues nothing', async () => {
    const before = (await a.api.get<{ metadata: { total: number } }>(`/v1/projects/${a.projectId}/jobs?jobType=figma_code_generation`)).body.metadata.total;
    const reply = await a.api.post<Problem>(`${base()}/code`, { frameIds: [imported.frames[0].nodeId, '999:1', '999:2'] });
    expect(reply.status).toBe(422);
    expect(reply.body.detail).toContain('999:1');
    expect(reply.body.errors.map((e) => e.path)).toEqual(['/frameIds/1', '/frameIds/2']);
    const after = (await a.api.get<{ metadata: { total: number } }>(`/v1/projects/${a.projectId}/jobs?jobType=figma_code_generation`)).body.metadata.total;
    expect(after).toBe(before);
  });

  it("shows the job in the application's status when applicationId is given; an application of another project is 404", async () => {
    const app = await createTodoApp(a);
    const queued = await a.api.post<{ jobId: string }>(`${base()}/code`, { applicationId: app.id, frameIds: [imageFrameId] });
    expect(queued.status, queued.text).toBe(202);
    expect((await waitForCode(a.api, a.projectId, imported.id, queued.body.jobId)).status).toBe(200);
    const application = await a.api.get<{ status: { jobs: Array<Job & { metadata: Record<string, unknown> }> } }>(`/v1/applications/${app.id}`);
    const job = application.body.status.jobs.find((j) => j.id === queued.body.jobId);
    expect(job).toMatchObject({ jobType: 'figma_code_generation', status: 'succeeded', projectId: a.projectId });
    expect(job!.metadata).toMatchObject({ importId: imported.id, applicationId: app.id });
    const status = await a.api.get<{ jobs: Job[] }>(`/v1/applications/${app.id}/status`);
    expect(status.body.jobs.find((j) => j.id === queued.body.jobId)).toMatchObject({ jobType: 'figma_code_generation', status: 'succeeded' });

    const elsewhere = await a.api.post<{ id: string }>('/v1/projects', { name: 'Other project' });
    const foreignApp = await createTodoApp({ api: a.api, projectId: elsewhere.body.id });
    const refused = await a.api.post<Problem>(`${base()}/code`, { applicationId: foreignApp.id });
    expect(refused.status).toBe(404);
    expect(refused.body.errors[0].path).toBe('/applicationId');
  });

  it('answers 409 while the job is queued or running, 422 with its error once it failed', async () => {
    const { jobs } = t.platform.services;
    const project = await sql<{ customer_id: string }>`select customer_id from appbuilder.projects where id = ${a.projectId}`.execute(t.database.db.kysely);
    const customerId = project.rows[0].customer_id;
    // A job row not handed to the queue yet stays queued, so what the route says of it is certain.
    const held = await jobs.create({ customerId, projectId: a.projectId, applicationId: null, jobType: 'figma_code_generation', metadata: { importId: imported.id } });
    const queuedReply = await a.api.get<Problem>(`${base()}/code/${held.id}`);
    expect(queuedReply.status).toBe(409);
    expect(queuedReply.body.detail).toContain('queued');
    await jobs.markRunning(held.id);
    const running = await a.api.get<Problem>(`${base()}/code/${held.id}`);
    expect(running.status).toBe(409);
    expect(running.body.detail).toContain('running');

    // A real failure: frames the file does not have reach the renderer (the route checks them
    // first, so this job is queued directly), and the job fails with the renderer's message.
    const failing = await jobs.create({ customerId, projectId: a.projectId, applicationId: null, jobType: 'figma_code_generation', metadata: { importId: imported.id, frameIds: ['404:404'] } });
    await t.platform.services.queue.enqueue(failing);
    const failed = await waitForCode(a.api, a.projectId, imported.id, failing.id);
    expect(failed.status).toBe(422);
    const problem = JSON.parse(failed.bytes.toString('utf8')) as Problem;
    expect(problem.detail).toContain('404:404');
    const row = await jobs.get(failing.id);
    expect(row).toMatchObject({ status: 'failed' });
    expect(problem.detail).toContain(row!.errorMessage!);
  });

  it('answers 404 for a job of another import, and for every job once the import is deleted', async () => {
    const queued = await a.api.post<{ jobId: string }>(`${base()}/code`, { frameIds: [imageFrameId] });
    expect((await waitForCode(a.api, a.projectId, imported.id, queued.body.jobId)).status).toBe(200);
    const second = await a.api.post<ImportReply>(`/v1/projects/${a.projectId}/figma/imports`, { fileKey: 'figmagic', tokenSecret: 'FIGMA_TOKEN' });
    expect((await getCode(a.api, a.projectId, second.body.id, queued.body.jobId)).status).toBe(404);
    expect((await a.api.delete(`/v1/projects/${a.projectId}/figma/imports/${imported.id}`)).status).toBe(204);
    expect((await getCode(a.api, a.projectId, imported.id, queued.body.jobId)).status).toBe(404);
  });
});

