// Issue 15 (part A): Figma imports over HTTP on both databases. The REST import runs against a
// local HTTP server started here that answers in Figma's shape (imports-support.ts): a double of
// a third-party service we cannot reach from here. Through the same outbound guard as
// http.request, which refuses loopback unless APPBUILDER_HTTP_ALLOW lists it (set here, and unset
// once to see the refusal). Also: imports from an uploaded attachment, list/get/delete, bodies
// refused with the offending member named, another customer's 404s, a project's deletion.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { uploadAttachment } from '../specifications/support.ts';
import { GOOD_TOKEN, PNG, fixtureBytes, startFigmaDouble, withImageFill, type FigmaDouble, type ImportReply } from './imports-support.ts';

const FIXTURE = 'figmagic-design-system-template.json';
type Problem = { status: number; detail: string; errors: Array<{ path: string; message: string }> };

describe.each(await availableDrivers())('Figma imports (%s)', (driver) => {
  let t: TestPlatform;
  let a: Tenant;
  let b: Tenant;
  let figma: FigmaDouble;
  const saved = { url: process.env.APPBUILDER_FIGMA_API_URL, allow: process.env.APPBUILDER_HTTP_ALLOW };
  const original = JSON.parse(fixtureBytes(FIXTURE).toString('utf8')) as { name: string; version: string; lastModified: string };

  const imports = (tenant: Tenant) => `/v1/projects/${tenant.projectId}/figma/imports`;
  const putToken = (tenant: Tenant, name: string, value: string) => tenant.api.request('PUT', `/v1/projects/${tenant.projectId}/secrets/${name}`, { body: { value } });

  beforeAll(async () => {
    const withImage = withImageFill(fixtureBytes(FIXTURE), 'img-hero');
    figma = await startFigmaDouble({ figmagic: { json: withImage.json, images: { 'img-hero': PNG } } });
    process.env.APPBUILDER_FIGMA_API_URL = figma.url;
    process.env.APPBUILDER_HTTP_ALLOW = '127.0.0.1';
    t = await startTestPlatform(driver);
    a = await createTenant(t, 'Figma A');
    b = await createTenant(t, 'Figma B');
    expect((await putToken(a, 'FIGMA_TOKEN', GOOD_TOKEN)).status).toBe(201);
    expect((await putToken(a, 'WRONG_TOKEN', 'figd_not-a-token')).status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await figma?.close();
    for (const [name, value] of [['APPBUILDER_FIGMA_API_URL', saved.url], ['APPBUILDER_HTTP_ALLOW', saved.allow]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('imports by file key from the Figma API with the project secret as X-Figma-Token, frames listed with page and size, images kept', async () => {
    const before = figma.requests.length;
    const reply = await a.api.post<ImportReply>(imports(a), { fileKey: 'figmagic', tokenSecret: 'FIGMA_TOKEN' });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toMatchObject({ projectId: a.projectId, fileKey: 'figmagic', name: original.name, version: original.version, lastModified: new Date(original.lastModified).toISOString() });
    // The fixture's 5 pages hold 21 top-level frames and components (test/fixtures/README.md).
    expect(reply.body.frames.length).toBeGreaterThanOrEqual(21);
    const views = reply.body.frames.find((f) => f.name === 'MacBook Pro');
    expect(views).toMatchObject({ page: 'Views' });
    expect(views!.width).toBeGreaterThan(1000);
    expect(views!.height).toBeGreaterThan(500);
    expect(new Set(reply.body.frames.map((f) => f.page))).toEqual(new Set(['Design Tokens', 'Elements', 'Graphics', 'Components', 'Views']));

    // File and images endpoints with the token; the image itself without it.
    const seen = figma.requests.slice(before);
    expect(seen.map((r) => r.path)).toEqual(['/v1/files/figmagic', '/v1/files/figmagic/images', '/images/figmagic/img-hero']);
    expect(seen.map((r) => r.token)).toEqual([GOOD_TOKEN, GOOD_TOKEN, undefined]);
    const stored = await sql<{ image_ref: string; content_type: string; data: Uint8Array }>`
      select image_ref, content_type, data from appbuilder.figma_import_images where import_id = ${reply.body.id}`.execute(t.database.db.kysely);
    expect(stored.rows.map((r) => [r.image_ref, r.content_type, Buffer.from(r.data).equals(PNG)])).toEqual([['img-hero', 'image/png', true]]);
    // The token is nowhere in the answer.
    expect(reply.text).not.toContain(GOOD_TOKEN);
  });

  it("answers Figma's refusals as 422 with Figma's message: a bad token, an unknown file; a missing secret names it", async () => {
    const bad = await a.api.post<Problem>(imports(a), { fileKey: 'figmagic', tokenSecret: 'WRONG_TOKEN' });
    expect(bad.status).toBe(422);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect(bad.body.detail).toContain('Invalid token');
    expect(bad.body.errors).toEqual([{ path: '/tokenSecret', message: expect.stringContaining('Invalid token') }]);
    expect(bad.text).not.toContain('figd_not-a-token');

    const unknown = await a.api.post<Problem>(imports(a), { fileKey: 'NoSuchFile123', tokenSecret: 'FIGMA_TOKEN' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail).toContain('Not found');
    expect(unknown.body.errors[0].path).toBe('/fileKey');

    const missing = await a.api.post<Problem>(imports(a), { fileKey: 'figmagic', tokenSecret: 'NO_SUCH_SECRET' });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual([{ path: '/tokenSecret', message: expect.stringContaining('NO_SUCH_SECRET') }]);
    // None of them stored anything.
    const list = await a.api.get<{ items: ImportReply[] }>(`${imports(a)}?limit=1000`);
    expect(list.body.items.every((i) => i.fileKey === 'figmagic')).toBe(true);
  });

  it('reaches the Figma API only through the outbound guard: loopback is refused unless APPBUILDER_HTTP_ALLOW lists it', async () => {
    const before = figma.requests.length;
    delete process.env.APPBUILDER_HTTP_ALLOW;
    try {
      const refused = await a.api.post<Problem>(imports(a), { fileKey: 'figmagic', tokenSecret: 'FIGMA_TOKEN' });
      expect(refused.status).toBe(422);
      expect(refused.body.detail).toMatch(/127\.0\.0\.1.*APPBUILDER_HTTP_ALLOW/);
      expect(figma.requests.length).toBe(before);
    } finally {
      process.env.APPBUILDER_HTTP_ALLOW = '127.0.0.1';
    }
  });

  it('imports an uploaded Figma JSON attachment (no images: placeholders); another kind of file is 422', async () => {
    const uploaded = await uploadAttachment(a.api, a.projectId, FIXTURE, fixtureBytes(FIXTURE), 'application/json');
    expect(uploaded.status).toBe(201);
    const reply = await a.api.post<ImportReply>(imports(a), { attachmentId: uploaded.body.id });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toMatchObject({ fileKey: null, name: original.name, version: original.version });
    const byKey = (await a.api.get<{ items: ImportReply[] }>(`${imports(a)}?limit=1000`)).body.items.find((i) => i.fileKey === 'figmagic')!;
    expect(reply.body.frames).toEqual(byKey.frames);
    const images = await sql<{ n: number }>`select count(*)::int as n from appbuilder.figma_import_images where import_id = ${reply.body.id}`.execute(t.database.db.kysely);
    expect(images.rows[0].n).toBe(0);

    const note = await uploadAttachment(a.api, a.projectId, 'note.txt', Buffer.from('Not a design at all.\n'), 'text/plain');
    const refused = await a.api.post<Problem>(imports(a), { attachmentId: note.body.id });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].path).toBe('/attachmentId');
    const gone = await a.api.post<Problem>(imports(a), { attachmentId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' });
    expect(gone.status).toBe(422);
    expect(gone.body.errors[0].path).toBe('/attachmentId');
  });

  it('refuses a body without a source, with both, or with a malformed key, naming the member (400)', async () => {
    const none = await a.api.post<Problem>(imports(a), {});
    expect(none.status).toBe(400);
    expect(none.body.errors.map((e) => e.path).sort()).toEqual(['/fileKey', '/tokenSecret']);
    const both = await a.api.post<Problem>(imports(a), { fileKey: 'figmagic', tokenSecret: 'FIGMA_TOKEN', attachmentId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b' });
    expect(both.status).toBe(400);
    expect(both.body.errors.map((e) => e.path).sort()).toEqual(['/fileKey', '/tokenSecret']);
    const traversal = await a.api.post<Problem>(imports(a), { fileKey: '../../v1/me', tokenSecret: 'FIGMA_TOKEN' });
    expect(traversal.status).toBe(400);
    expect(traversal.body.errors[0].path).toBe('/fileKey');
  });

  it('lists (paged), gets and deletes; another customer gets 404 for all of it', async () => {
    const created = await a.api.post<ImportReply>(imports(a), { fileKey: 'figmagic', tokenSecret: 'FIGMA_TOKEN' });
    expect(created.status).toBe(201);
    const all = await a.api.get<{ items: ImportReply[]; metadata: { total: number } }>(`${imports(a)}?limit=1000`);
    expect(all.body.items.map((i) => i.id)).toContain(created.body.id);
    expect(all.body.metadata.total).toBe(all.body.items.length);
    const page = await a.api.get<{ items: ImportReply[]; metadata: { total: number } }>(`${imports(a)}?limit=1&offset=1`);
    expect(page.body.items).toEqual([all.body.items[1]]);
    expect(page.body.metadata.total).toBe(all.body.metadata.total);
    expect((await a.api.get(`${imports(a)}/${created.body.id}`)).body).toEqual(created.body);

    // Customer B, with A's ids: nothing, in every operation.
    const foreign = `/v1/projects/${a.projectId}/figma/imports`;
    expect((await b.api.get(foreign)).status).toBe(404);
    expect((await b.api.get(`${foreign}/${created.body.id}`)).status).toBe(404);
    expect((await b.api.post(foreign, { fileKey: 'figmagic', tokenSecret: 'FIGMA_TOKEN' })).status).toBe(404);
    expect((await b.api.post(`${foreign}/${created.body.id}/code`, {})).status).toBe(404);
    expect((await b.api.delete(`${foreign}/${created.body.id}`)).status).toBe(404);
    // Nor through B's own project.
    expect((await b.api.get(`${imports(b)}/${created.body.id}`)).status).toBe(404);

    expect((await a.api.delete(`${imports(a)}/${created.body.id}`)).status).toBe(204);
    expect((await a.api.get(`${imports(a)}/${created.body.id}`)).status).toBe(404);
    expect((await a.api.delete(`${imports(a)}/${created.body.id}`)).status).toBe(404);
    const images = await sql<{ n: number }>`select count(*)::int as n from appbuilder.figma_import_images where import_id = ${created.body.id}`.execute(t.database.db.kysely);
    expect(images.rows[0].n).toBe(0);
  });

  it("deleting a project removes its imports, their images and generated code", async () => {
    const project = await a.api.post<{ id: string }>('/v1/projects', { name: 'Figma doomed' });
    const doomed: Tenant = { api: a.api, projectId: project.body.id };
    expect((await putToken(doomed, 'FIGMA_TOKEN', GOOD_TOKEN)).status).toBe(201);
    const created = await a.api.post<ImportReply>(imports(doomed), { fileKey: 'figmagic', tokenSecret: 'FIGMA_TOKEN' });
    expect(created.status).toBe(201);
    expect((await a.api.delete(`/v1/projects/${doomed.projectId}`)).status).toBe(204);
    const left = await sql<{ imports: number; images: number }>`
      select (select count(*)::int from appbuilder.figma_imports where project_id = ${doomed.projectId}) as imports,
             (select count(*)::int from appbuilder.figma_import_images where import_id = ${created.body.id}) as images`.execute(t.database.db.kysely);
    expect(left.rows[0]).toEqual({ imports: 0, images: 0 });
  });
});
