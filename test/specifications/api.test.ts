// Issue 14: attachments and specifications over HTTP on both databases: uploads raw and
// multipart with the kind read from the content, list/get/content/delete, the 25 MiB limit,
// specifications built by a job (project jobs), failures with a clear message, apply to a new
// application and into an existing one (one version, clashes 409), deletion with the project.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type AppReply, type Tenant } from '../support/tenant.ts';
import { validateDefinition } from '../../src/definition/validate.ts';
import { fixture, settledSpecification, specificationFrom, uploadAttachment, type AttachmentReply, type SpecificationReply } from './support.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a1c6d1e40000000049454e44ae426082', 'hex');
const MiB = 1024 * 1024;

describe.each(await availableDrivers())('attachments and specifications (%s)', (driver) => {
  let t: TestPlatform;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    a = await createTenant(t, 'Specs A');
    b = await createTenant(t, 'Specs B');
  }, 120_000);
  afterAll(() => t?.close());

  it('reads the kind of each upload from its content, whatever its name and declared type', async () => {
    const cases: Array<[string, Uint8Array, string]> = [
      ['openapi/petstore3-openapi.yaml', fixture('openapi/petstore3-openapi.yaml'), 'openapi'],
      ['openapi/petstore-swagger2.json', fixture('openapi/petstore-swagger2.json'), 'openapi'],
      ['jsonschema/cyclonedx-bom-1.3.schema.json', fixture('jsonschema/cyclonedx-bom-1.3.schema.json'), 'jsonschema'],
      ['figma/figmagic-design-system-template.json', fixture('figma/figmagic-design-system-template.json'), 'figma'],
      ['sql/pagila-schema.sql', fixture('sql/pagila-schema.sql'), 'sql'],
      ['csv/congress-terms.csv', fixture('csv/congress-terms.csv'), 'csv'],
      ['markdown/simpler-grants-get-opportunities.md', fixture('markdown/simpler-grants-get-opportunities.md'), 'markdown'],
      ['pdf/nus-user-stories.pdf', fixture('pdf/nus-user-stories.pdf'), 'pdf'],
      ['dot.png', PNG, 'image'],
      ['note.txt', Buffer.from('Remember to water the plants.\nAnd the cat.\n'), 'text'],
      ['noise', randomBytes(2000), 'other'],
    ];
    for (const [file, bytes, kind] of cases) {
      // Named and typed as nothing in particular: the content decides.
      const reply = await uploadAttachment(a.api, a.projectId, 'upload', bytes);
      expect(reply.status, file).toBe(201);
      expect(reply.body, file).toMatchObject({ projectId: a.projectId, name: 'upload', size: bytes.length, sha256: sha256(bytes), kind });
      expect(reply.body.createdBy?.type).toBe('apiClient');
    }
  });

  it('takes multipart uploads, lists, reads, serves the bytes and deletes', async () => {
    const bytes = fixture('openapi/petstore-swagger2.json');
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'application/json' }), 'petstore.json');
    const multi = await uploadAttachment(a.api, a.projectId, null, form);
    expect(multi.status).toBe(201);
    expect(multi.body).toMatchObject({ name: 'petstore.json', kind: 'openapi', contentType: 'application/json', size: bytes.length });

    const one = await a.api.get<AttachmentReply>(`/v1/projects/${a.projectId}/attachments/${multi.body.id}`);
    expect(one.body).toEqual(multi.body);
    const list = await a.api.get<{ items: AttachmentReply[]; metadata: { total: number } }>(`/v1/projects/${a.projectId}/attachments?limit=1000`);
    expect(list.body.items.map((x) => x.id)).toContain(multi.body.id);
    expect(list.body.metadata.total).toBe(list.body.items.length);

    const content = await fetch(`${t.baseUrl}/v1/projects/${a.projectId}/attachments/${multi.body.id}/content`, {
      headers: { authorization: `Bearer ${a.api.token}`, 'x-svc-api-client': a.api.apiKey! },
    });
    expect(content.status).toBe(200);
    expect(content.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
    expect(content.headers.get('content-disposition')).toContain('petstore.json');
    expect(Buffer.from(await content.arrayBuffer()).equals(bytes)).toBe(true);

    // Another customer sees none of it.
    expect((await b.api.get(`/v1/projects/${a.projectId}/attachments/${multi.body.id}`)).status).toBe(404);
    expect((await b.api.get(`/v1/projects/${a.projectId}/attachments`)).status).toBe(404);
    expect((await b.api.delete(`/v1/projects/${a.projectId}/attachments/${multi.body.id}`)).status).toBe(404);

    expect((await a.api.delete(`/v1/projects/${a.projectId}/attachments/${multi.body.id}`)).status).toBe(204);
    const gone = await a.api.get(`/v1/projects/${a.projectId}/attachments/${multi.body.id}`);
    expect(gone.status).toBe(404);
    expect(gone.headers.get('content-type')).toContain('application/problem+json');
  });

  it('refuses an attachment over 25 MiB with 413 and keeps nothing of it', async () => {
    const count = async () => (await a.api.get<{ metadata: { total: number } }>(`/v1/projects/${a.projectId}/attachments`)).body.metadata.total;
    const before = await count();
    const files = await sql<{ n: number }>`select count(*)::int as n from appbuilder.files`.execute(t.database.db.kysely);
    const reply = await uploadAttachment(a.api, a.projectId, 'big.bin', Buffer.alloc(25 * MiB + 1, 0x61));
    expect(reply.status).toBe(413);
    expect(reply.headers.get('content-type')).toContain('application/problem+json');
    expect(reply.body.errors?.[0]?.message).toMatch(/25 MiB/);
    expect(await count()).toBe(before);
    expect((await sql<{ n: number }>`select count(*)::int as n from appbuilder.files`.execute(t.database.db.kysely)).rows[0].n).toBe(files.rows[0].n);
    // Exactly 25 MiB is taken.
    const edge = await uploadAttachment(a.api, a.projectId, 'edge.bin', Buffer.alloc(25 * MiB, 0x61));
    expect(edge.status).toBe(201);
    expect((await a.api.delete(`/v1/projects/${a.projectId}/attachments/${edge.body.id}`)).status).toBe(204);
  });

  it('builds a specification by a job, listed with the project jobs, whose content validates', async () => {
    const spec = await specificationFrom(a.api, a.projectId, ['openapi/petstore3-openapi.yaml', 'markdown/simpler-grants-get-opportunities.md']);
    expect(spec.status, spec.errorMessage).toBe('succeeded');
    expect(() => validateDefinition(structuredClone(spec.content))).not.toThrow();
    const content = spec.content as { models: Array<{ name: string }>; personas: Array<{ name: string }>; requirements: unknown[]; triggers: unknown[] };
    // The Petstore's schemas and the deliverable's stories, in one definition.
    expect(content.models.map((m) => m.name)).toEqual(expect.arrayContaining(['Pet', 'Category', 'Tag', 'Order', 'User']));
    expect(content.personas.length).toBeGreaterThan(0);
    expect(content.requirements.length).toBeGreaterThan(0);
    // The Petstore's operations map onto the generated routes: no trigger of their own.
    expect(content.triggers).toEqual([]);
    expect(spec.warnings.some((w) => w.message.startsWith('GET /pet/{petId} (getPetById) → the generated `GET /pets/{id}`'))).toBe(true);
    expect(spec.summary?.models).toBe(content.models.length);
    // Provenance names the uploaded attachments.
    const sources = new Set(Object.values(spec.provenance).map((p) => p.attachmentId));
    expect([...sources].sort()).toEqual([...spec.attachmentIds].sort());
    const petIndex = content.models.findIndex((m) => m.name === 'Pet');
    expect(spec.provenance[`/models/${petIndex}`].locator).toContain('Pet');

    const jobs = await a.api.get<{ items: Array<Record<string, unknown>>; metadata: { total: number } }>(`/v1/projects/${a.projectId}/jobs?jobType=specification_generation`);
    expect(jobs.status).toBe(200);
    const job = jobs.body.items[0];
    expect(Object.keys(job).sort()).toEqual(['completedAt', 'id', 'jobType', 'projectId', 'startedAt', 'status']);
    expect(job).toMatchObject({ jobType: 'specification_generation', status: 'succeeded', projectId: a.projectId });

    const listed = await a.api.get<{ items: SpecificationReply[] }>(`/v1/projects/${a.projectId}/specifications`);
    expect(listed.body.items.map((s) => s.id)).toContain(spec.id);
    expect((await b.api.get(`/v1/projects/${a.projectId}/specifications/${spec.id}`)).status).toBe(404);
    expect((await b.api.get(`/v1/projects/${a.projectId}/jobs`)).status).toBe(404);
  }, 120_000);

  it('answers a specification of documents nothing can read with a failed job and a clear message; bad requests with problems', async () => {
    const image = await uploadAttachment(a.api, a.projectId, 'logo.png', PNG);
    const created = await a.api.post<{ id: string; status: string; jobId: string }>(`/v1/projects/${a.projectId}/specifications`, { attachmentIds: [image.body.id] });
    expect(created.status).toBe(202);
    expect(created.body.status).toBe('queued');
    const spec = await settledSpecification(a.api, a.projectId, created.body.id);
    expect(spec.status).toBe('failed');
    expect(spec.errorMessage).toMatch(/Nothing could be read from the attachments.*logo\.png/);
    const jobs = await a.api.get<{ items: Array<{ id: string; status: string }> }>(`/v1/projects/${a.projectId}/jobs`);
    expect(jobs.body.items.find((j) => j.id === created.body.jobId)?.status).toBe('failed');
    const app = await a.api.post(`/v1/projects/${a.projectId}/specifications/${spec.id}/apply`, {});
    expect(app.status).toBe(409);
    // A worker that died mid-build leaves the row running; its job, failed by the queue's sweep, decides.
    await sql`update appbuilder.specifications set status = 'running', error_message = null where id = ${spec.id}`.execute(t.database.db.kysely);
    await sql`update appbuilder.jobs set error_message = 'The worker stopped before the job finished.' where id = ${created.body.jobId}`.execute(t.database.db.kysely);
    const orphan = await a.api.get<SpecificationReply>(`/v1/projects/${a.projectId}/specifications/${spec.id}`);
    expect(orphan.body).toMatchObject({ status: 'failed', errorMessage: 'The worker stopped before the job finished.' });

    const unknown = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
    const missing = await a.api.post<{ errors: Array<{ path: string }> }>(`/v1/projects/${a.projectId}/specifications`, { attachmentIds: [image.body.id, unknown] });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.map((e) => e.path)).toEqual(['/attachmentIds/1']);
    // B's attachment is not A's.
    const theirs = await uploadAttachment(b.api, b.projectId, 'x.sql', fixture('sql/pagila-schema.sql'));
    expect((await a.api.post(`/v1/projects/${a.projectId}/specifications`, { attachmentIds: [theirs.body.id] })).status).toBe(422);
    const empty = await a.api.post<{ errors: Array<{ path: string }> }>(`/v1/projects/${a.projectId}/specifications`, { attachmentIds: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0].path).toBe('/attachmentIds');
  }, 120_000);

  it('applies a specification to a new application, then into an existing one as one version, and refuses clashes', async () => {
    const spec = await specificationFrom(a.api, a.projectId, ['openapi/petstore3-openapi.yaml']);
    expect(spec.status, spec.errorMessage).toBe('succeeded');
    const created = await a.api.post<AppReply>(`/v1/projects/${a.projectId}/specifications/${spec.id}/apply`, { name: 'Pets' });
    expect(created.status).toBe(201);
    expect(created.body.scode.models.map((m) => m.name).sort()).toEqual((spec.content as { models: Array<{ name: string }> }).models.map((m) => m.name).sort());
    // Applied again: it lacks nothing, so no new version.
    const again = await a.api.post<AppReply>(`/v1/projects/${a.projectId}/specifications/${spec.id}/apply`, { applicationId: created.body.id });
    expect(again.status).toBe(200);
    expect(again.body.serverVersion).toBe(created.body.serverVersion);

    // An application with a Pet of its own, one field the Petstore types otherwise.
    const own = structuredClone(created.body.scode);
    own.models = own.models.filter((m) => m.name === 'User' || m.name === 'Pet');
    // Without relationships, and closed: the proposed rules may name an owner field left out here.
    for (const m of own.models) {
      m.fields = m.fields.filter((f) => !f.to.startsWith('urn:svc:model:'));
      m.accessControl = { rules: [], defaultAccess: 'deny' };
    }
    own.actions = [];
    own.triggers = [];
    const pet = own.models.find((m) => m.name === 'Pet')!;
    pet.fields = pet.fields.filter((f) => f.name !== 'status');
    const small = await a.api.post<AppReply>('/v1/applications', { projectId: a.projectId, name: 'Small pets', scode: own });
    expect(small.status, small.text).toBe(201);
    const versions = async (id: string) => (await a.api.get<{ metadata: { total: number } }>(`/v1/applications/${id}/versions`)).body.metadata.total;
    expect(await versions(small.body.id)).toBe(1);
    const merged = await a.api.post<AppReply>(`/v1/projects/${a.projectId}/specifications/${spec.id}/apply`, { applicationId: small.body.id });
    expect(merged.status, merged.text).toBe(200);
    expect(await versions(small.body.id)).toBe(2);
    const names = merged.body.scode.models.map((m) => m.name);
    expect(names).toEqual(expect.arrayContaining(['Pet', 'Category', 'Tag', 'Order', 'User']));
    // Pet kept its id and got its missing fields (status, its relationships).
    const mergedPet = merged.body.scode.models.find((m) => m.name === 'Pet')!;
    expect(mergedPet.id).toBe(pet.id);
    expect(mergedPet.fields.map((f) => f.name)).toEqual(expect.arrayContaining(['name', 'status', 'category', 'tags']));

    // A clash: the application's Pet.name is a number.
    const clashing = structuredClone(own);
    clashing.models.find((m) => m.name === 'Pet')!.fields.find((f) => f.name === 'name')!.to = 'p_NUMBER';
    const other = await a.api.post<AppReply>('/v1/applications', { projectId: a.projectId, name: 'Clash', scode: clashing });
    expect(other.status).toBe(201);
    const refused = await a.api.post<{ errors: Array<{ path: string; message: string }> }>(`/v1/projects/${a.projectId}/specifications/${spec.id}/apply`, {
      applicationId: other.body.id,
    });
    expect(refused.status).toBe(409);
    expect(refused.body.errors).toHaveLength(1);
    expect(refused.body.errors[0].message).toMatch(/Pet\.name is p_NUMBER in the application and p_TEXT in the specification/);
    expect(await versions(other.body.id)).toBe(1);
  }, 120_000);

  it("deletes a project's attachments (rows and files) and specifications with it", async () => {
    const project = await a.api.post<{ id: string }>('/v1/projects', { name: 'Doomed' });
    const spec = await specificationFrom(a.api, project.body.id, ['sql/pagila-schema.sql']);
    expect(spec.status, spec.errorMessage).toBe('succeeded');
    const count = async (table: 'attachments' | 'specifications') =>
      (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(`appbuilder.${table}`)} where project_id = ${project.body.id}`.execute(t.database.db.kysely)).rows[0].n;
    const files = async () =>
      (await sql<{ n: number }>`select count(*)::int as n from appbuilder.files where path like ${`attachments/${project.body.id}/%`}`.execute(t.database.db.kysely)).rows[0].n;
    expect(await count('attachments')).toBe(1);
    expect(await files()).toBe(1);
    expect((await a.api.delete(`/v1/projects/${project.body.id}`)).status).toBe(204);
    expect(await count('attachments')).toBe(0);
    expect(await count('specifications')).toBe(0);
    expect(await files()).toBe(0);
  }, 120_000);
});
