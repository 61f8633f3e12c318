// Storage by project, as the attacks of the outside review: an admin builder limited to project P1
// tries to list, read, sign, overwrite and delete P2's attachments and the files P2's end users
// uploaded (every attempt: 404, as if absent, and the bytes unchanged); and nobody, not even the
// customer's own API client, writes or deletes under `attachments/` or `apps/` through /v1/storage
// (403 naming the path). Real server, real database, the filesystem driver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents } from '../runtime/served-app.ts';
import { addBuilder, type TestBuilder } from '../access/builders-support.ts';
import { getBytes, tempStorage, uploadRaw } from '../files/support.ts';
import type { ApiClient } from '../support/client.ts';

type StoredFile = { id: string; path: string; projectId: string | null };
type Page = { items: StoredFile[]; metadata: { total: number } };
type Problem = { detail?: string; errors?: Array<{ path: string; message: string }> };

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a1c6d1e40000000049454e44ae426082', 'hex');

async function attach(api: ApiClient, projectId: string, name: string, text: string): Promise<{ id: string }> {
  const response = await fetch(`${api.baseUrl}/v1/projects/${projectId}/attachments?name=${name}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'x-svc-api-client': api.apiKey ?? '', 'content-type': 'text/plain' },
    body: text,
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string };
}

describe.each(await availableDrivers())('storage by project on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let p2: string;
  let scopedAdmin: TestBuilder;
  let p2Attachment: StoredFile;
  let p2Upload: StoredFile;
  let p1Attachment: StoredFile;
  const temp = tempStorage();

  /** The file the customer's own client (unscoped) lists at `prefix`: exactly one. */
  async function onlyFileUnder(prefix: string): Promise<StoredFile> {
    const page = await tenant.api.get<Page>(`/v1/storage/files?prefix=${encodeURIComponent(prefix)}`);
    expect(page.status).toBe(200);
    expect(page.body.items).toHaveLength(1);
    return page.body.items[0];
  }

  beforeAll(async () => {
    t = await startTestPlatform(driver, { storage: temp.storage });
    tenant = await createTenant(t, 'Storage scope');
    const second = await tenant.api.post<{ id: string }>('/v1/projects', { name: 'P2' });
    expect(second.status).toBe(201);
    p2 = second.body.id;
    scopedAdmin = await addBuilder(tenant.api, 'admin', [tenant.projectId], 'admin of P1 only');

    const p1Doc = await attach(tenant.api, tenant.projectId, 'p1.txt', 'P1 notes');
    const p2Doc = await attach(tenant.api, p2, 'p2.txt', 'P2 confidential notes');
    p1Attachment = await onlyFileUnder(`attachments/${tenant.projectId}/${p1Doc.id}`);
    p2Attachment = await onlyFileUnder(`attachments/${p2}/${p2Doc.id}`);

    // An application of P2, published, and one of its end users uploads a file.
    const app = await createTodoApp({ api: tenant.api, projectId: p2 }, todoScodeWithoutEvents());
    await publish({ api: tenant.api, projectId: p2 }, app.id);
    const served = new ServedApi(t, { api: tenant.api, projectId: p2 }, app.id, app.serverVersion);
    const user = await served.signup('Eve', 'eve@example.test');
    const uploaded = await fetch(`${served.base}/files`, { method: 'POST', headers: { authorization: `Bearer ${user.token}`, 'content-type': 'image/png' }, body: PNG });
    expect(uploaded.status).toBe(201);
    p2Upload = await onlyFileUnder(`apps/${app.id}/`);
  });
  afterAll(async () => {
    await t?.close();
    temp.cleanup();
  });

  it('records the project of attachments and of end users’ uploads', () => {
    expect(p1Attachment.projectId).toBe(tenant.projectId);
    expect(p2Attachment.projectId).toBe(p2);
    expect(p2Upload.projectId).toBe(p2);
  });

  it('an admin limited to P1 cannot list, read, sign or delete P2’s attachments or its end users’ uploads (404 as if absent)', async () => {
    const api = scopedAdmin.api;
    const listed = await api.get<Page>('/v1/storage/files');
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((f) => f.id)).toEqual([p1Attachment.id]);
    for (const prefix of [`attachments/${p2}/`, 'apps/']) {
      const under = await api.get<Page>(`/v1/storage/files?prefix=${encodeURIComponent(prefix)}`);
      expect(under.body.metadata.total).toBe(0);
    }
    expect((await api.get<Page>(`/v1/storage/files?projectId=${p2}`)).status).toBe(404);

    for (const file of [p2Attachment, p2Upload]) {
      expect((await api.get(`/v1/storage/files/${file.id}`)).status).toBe(404);
      expect((await api.get(`/v1/storage/files/${file.id}/content`)).status).toBe(404);
      expect((await api.post(`/v1/storage/files/${file.id}/signed-url`, {})).status).toBe(404);
      expect((await api.delete(`/v1/storage/files/${file.id}`)).status).toBe(404);
    }
    // Still there, unchanged, for the customer's own client.
    expect((await getBytes(tenant.api, `/v1/storage/files/${p2Attachment.id}/content`)).bytes.toString()).toBe('P2 confidential notes');
    expect((await getBytes(tenant.api, `/v1/storage/files/${p2Upload.id}/content`)).bytes.equals(PNG)).toBe(true);

    // Its own project's attachment it reads (and may sign).
    expect((await getBytes(api, `/v1/storage/files/${p1Attachment.id}/content`)).bytes.toString()).toBe('P1 notes');
    expect((await api.post(`/v1/storage/files/${p1Attachment.id}/signed-url`, {})).status).toBe(200);
  });

  it('an admin limited to P1 cannot overwrite P2’s files by their paths, nor store a file for P2', async () => {
    for (const file of [p2Attachment, p2Upload]) {
      const answer = await uploadRaw(scopedAdmin.api, `path=${encodeURIComponent(file.path)}&overwrite=true`, Buffer.from('planted'), { 'content-type': 'text/plain' });
      expect(answer.status).toBe(403);
    }
    const forP2 = await uploadRaw(scopedAdmin.api, `path=reports/p2.txt&projectId=${p2}`, Buffer.from('x'), { 'content-type': 'text/plain' });
    expect(forP2.status).toBe(404);
    // A file the customer's client stored for P2 at an ordinary path: taken, not replaced, not listed.
    const clientFile = await uploadRaw(tenant.api, `path=reports/q2.txt&projectId=${p2}`, Buffer.from('P2 figures'), { 'content-type': 'text/plain' });
    expect(clientFile.status).toBe(201);
    expect(clientFile.body.projectId).toBe(p2);
    const overwrite = await uploadRaw(scopedAdmin.api, 'path=reports/q2.txt&overwrite=true', Buffer.from('planted'), { 'content-type': 'text/plain' });
    expect(overwrite.status).toBe(409);
    expect((await scopedAdmin.api.get(`/v1/storage/files/${clientFile.body.id}`)).status).toBe(404);
    expect((await getBytes(tenant.api, `/v1/storage/files/${clientFile.body.id}/content`)).bytes.toString()).toBe('P2 figures');
    // Its own files of no project it keeps reaching.
    const own = await uploadRaw(scopedAdmin.api, 'path=scratch/mine.txt', Buffer.from('mine'), { 'content-type': 'text/plain' });
    expect(own.status).toBe(201);
    expect((await getBytes(scopedAdmin.api, `/v1/storage/files/${own.body.id}/content`)).bytes.toString()).toBe('mine');
  });

  it('nobody writes or deletes under attachments/ or apps/ through /v1/storage (403 naming the path)', async () => {
    for (const api of [tenant.api, scopedAdmin.api]) {
      for (const path of [p2Attachment.path, p2Upload.path, `attachments/${tenant.projectId}/new`, 'apps/anything/x.png', p1Attachment.path]) {
        const raw = await uploadRaw(api, `path=${encodeURIComponent(path)}&overwrite=true`, Buffer.from('planted'), { 'content-type': 'text/plain' });
        expect(raw.status).toBe(403);
        const problem = raw.body as Problem;
        expect(problem.detail).toContain(path);
        expect(problem.errors?.[0]?.path).toBe('/path');
        const form = new FormData();
        form.append('path', path);
        form.append('file', new Blob(['planted'], { type: 'text/plain' }), 'x.txt');
        expect((await uploadRaw(api, 'overwrite=true', form, {})).status).toBe(403);
      }
    }
    for (const file of [p2Attachment, p2Upload, p1Attachment]) {
      const refused = await tenant.api.delete<Problem>(`/v1/storage/files/${file.id}`);
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toContain(file.path);
    }
    expect((await scopedAdmin.api.delete(`/v1/storage/files/${p1Attachment.id}`)).status).toBe(403);
    expect((await getBytes(tenant.api, `/v1/storage/files/${p1Attachment.id}/content`)).bytes.toString()).toBe('P1 notes');
    expect((await getBytes(tenant.api, `/v1/storage/files/${p2Upload.id}/content`)).bytes.equals(PNG)).toBe(true);
  });
});
