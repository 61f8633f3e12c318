// Issue 13 item 2 (DESIGN §10): builder tokens see only their own storage files unless admin or
// owner; a builder's upload is tied to it (and cannot name another builder); viewers read but do not
// write; the API client sees and filters every file of the customer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { ApiClient } from '../support/client.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { getBytes, tempStorage, uploadRaw } from './support.ts';

type Page = { items: Array<{ id: string; path: string; builderId: string | null }>; metadata: { total: number } };

describe.each(await availableDrivers())('storage scoping by builder on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  const as: Record<string, { api: ApiClient; id: string }> = {};
  const temp = tempStorage();

  async function builder(role: string, email: string): Promise<{ api: ApiClient; id: string }> {
    const created = await tenant.api.post<{ id: string }>('/v1/builders', { name: email, email, role });
    expect(created.status).toBe(201);
    const token = await tenant.api.post<{ token: string }>(`/v1/builders/${created.body.id}/tokens`, {});
    expect(token.status).toBe(201);
    const api = new ApiClient(t.baseUrl, tenant.api.apiKey);
    api.token = token.body.token;
    return { api, id: created.body.id };
  }

  beforeAll(async () => {
    t = await startTestPlatform(driver, { storage: temp.storage });
    tenant = await createTenant(t, 'Builder files');
    as.ann = await builder('editor', 'ann@example.test');
    as.bob = await builder('editor', 'bob@example.test');
    as.admin = await builder('admin', 'admin@example.test');
    as.viewer = await builder('viewer', 'viewer@example.test');
  });
  afterAll(async () => {
    await t?.close();
    temp.cleanup();
  });

  it('ties uploads to the builder and shows each builder only its own files; admins and the client see all', async () => {
    const annFile = await uploadRaw(as.ann.api, 'path=ann/notes.txt', Buffer.from('ann'), { 'content-type': 'text/plain' });
    expect(annFile.status).toBe(201);
    expect(annFile.body.builderId).toBe(as.ann.id);
    const bobFile = await uploadRaw(as.bob.api, 'path=bob/notes.txt', Buffer.from('bob'), { 'content-type': 'text/plain' });
    expect(bobFile.body.builderId).toBe(as.bob.id);
    // A builder cannot file bytes under another builder; the API client may.
    expect((await uploadRaw(as.ann.api, `path=ann/x.txt&builderId=${as.bob.id}`, Buffer.from('x'), { 'content-type': 'text/plain' })).status).toBe(403);
    const forBob = await uploadRaw(tenant.api, `path=client/for-bob.txt&builderId=${as.bob.id}`, Buffer.from('c'), { 'content-type': 'text/plain' });
    expect(forBob.body.builderId).toBe(as.bob.id);

    const annList = await as.ann.api.get<Page>('/v1/storage/files');
    expect(annList.body.items.map((f) => f.path)).toEqual(['ann/notes.txt']);
    const bobList = await as.bob.api.get<Page>('/v1/storage/files');
    expect(bobList.body.items.map((f) => f.path).sort()).toEqual(['bob/notes.txt', 'client/for-bob.txt']);
    for (const path of [`/v1/storage/files/${bobFile.body.id}`, `/v1/storage/files/${bobFile.body.id}/content`]) {
      expect((await as.ann.api.get(path)).status).toBe(404);
    }
    expect((await as.ann.api.delete(`/v1/storage/files/${bobFile.body.id}`)).status).toBe(404);
    expect((await as.ann.api.post(`/v1/storage/files/${bobFile.body.id}/signed-url`, {})).status).toBe(404);
    // Ann may not replace Bob's file by its path either.
    expect((await uploadRaw(as.ann.api, 'path=bob/notes.txt&overwrite=true', Buffer.from('mine'), { 'content-type': 'text/plain' })).status).toBe(409);
    expect((await getBytes(as.bob.api, `/v1/storage/files/${bobFile.body.id}/content`)).bytes.toString()).toBe('bob');

    const adminList = await as.admin.api.get<Page>('/v1/storage/files');
    expect(adminList.body.metadata.total).toBe(3);
    const clientBob = await tenant.api.get<Page>(`/v1/storage/files?builderId=${as.bob.id}`);
    expect(clientBob.body.items.map((f) => f.path).sort()).toEqual(['bob/notes.txt', 'client/for-bob.txt']);
    expect((await as.admin.api.delete(`/v1/storage/files/${forBob.body.id}`)).status).toBe(204);
  });

  it('lets a viewer read its own (none) but not upload or delete (403 naming the role)', async () => {
    const list = await as.viewer.api.get<Page>('/v1/storage/files');
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([]);
    const refused = await uploadRaw(as.viewer.api, 'path=viewer/x.txt', Buffer.from('x'), { 'content-type': 'text/plain' });
    expect(refused.status).toBe(403);
    expect(String(refused.body.detail)).toContain('editor');
    const all = await tenant.api.get<Page>('/v1/storage/files');
    expect(all.body.items.map((f) => f.path)).not.toContain('viewer/x.txt');
  });
});
