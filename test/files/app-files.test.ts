// Issue 13 item 4 (DESIGN §6, "Files"): files in generated apps, over real HTTP on both databases
// and the filesystem driver. An end user uploads (raw and multipart), a record holds the keys,
// reads answer URLs, the bytes come back (sha256, Range, 304) only to callers who may read a
// record that references them (or to the uploader); refused values name their field; the
// per-app limit answers 413 and leaves nothing behind.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type ProblemBody, type Rec } from '../runtime/served-app.ts';
import { filesUnder, MiB, tempStorage } from './support.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a1c6d1e40000000049454e44ae426082', 'hex');
const LIMIT = MiB;

const field = (id: string, name: string, to: string, max: number | null) => ({ id, name, relationshipOwner: true, min: 0, max, to, accessControl: { rules: [] } });

/** The to-do example with a photo (one image) and attachments (files). */
function definition(appId: string) {
  const scode = todoScodeWithoutEvents() as unknown as { appId: string; models: Array<{ id: string; fields: unknown[] }> };
  scode.appId = appId;
  scode.models
    .find((m) => m.id === 'urn:svc:model:todo')!
    .fields.push(field('urn:svc:edge:todo-photo', 'photo', 'p_IMAGE', 1), field('urn:svc:edge:todo-attachments', 'attachments', 'p_FILE', null));
  scode.models.find((m) => m.id === 'urn:svc:model:user')!.fields.push(field('urn:svc:edge:user-avatar', 'avatar', 'p_IMAGE', 1));
  return scode;
}

interface Uploaded {
  key: string;
  url: string;
  contentType: string;
  size: number;
}

describe.each(await availableDrivers())('files in generated apps on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let other: ServedApi;
  let ann: { token: string; user: Rec };
  let bob: { token: string; user: Rec };
  const temp = tempStorage({ appMaxFileBytes: LIMIT });

  /** POST /files with `body` (raw with its type, or a form) as `token`. */
  async function upload(served: ServedApi, token: string | null, body: Uint8Array | FormData, contentType?: string) {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (contentType) headers['content-type'] = contentType;
    const response = await fetch(`${served.base}/files`, { method: 'POST', headers, body });
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: (await response.json()) as Uploaded & ProblemBody };
  }

  async function fetchBytes(url: string, token: string | null, headers: Record<string, string> = {}) {
    const response = await fetch(url, { headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
    return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
  }

  /** Rows of the customer's storage under the app's folder (through the storage API). */
  async function storedUnder(applicationId: string): Promise<number> {
    const list = await tenant.api.get<{ metadata: { total: number } }>(`/v1/storage/files?prefix=${encodeURIComponent(`apps/${applicationId}/`)}&limit=1`);
    return list.body.metadata.total;
  }

  beforeAll(async () => {
    t = await startTestPlatform(driver, { storage: temp.storage });
    tenant = await createTenant(t, 'App files');
    const app = await createTodoApp(tenant, definition('files-app'));
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    const second = await createTodoApp(tenant, definition('files-other'));
    await publish(tenant, second.id);
    other = new ServedApi(t, tenant, second.id, second.serverVersion);
    ann = await api.signup('Ann', 'ann@example.test');
    bob = await api.signup('Bob', 'bob@example.test');
  });
  afterAll(async () => {
    await t?.close();
    temp.cleanup();
  });

  it('refuses an anonymous upload with 401 and a problem body', async () => {
    const answer = await upload(api, null, PNG, 'image/png');
    expect(answer.status).toBe(401);
    expect(answer.contentType).toContain('application/problem+json');
  });

  it('stores an upload, a record holds its key and reads answer its URL; the bytes come back whole, by range and as 304', async () => {
    const photo = await upload(api, ann.token, PNG, 'image/png');
    expect(photo.status).toBe(201);
    expect(photo.body).toMatchObject({ contentType: 'image/png', size: PNG.length });
    expect(photo.body.url).toBe(`${api.base}/files/${photo.body.key}`);

    const bytes = randomBytes(300_000);
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'application/octet-stream' }), 'big report.bin');
    const attachment = await upload(api, ann.token, form);
    expect(attachment.status).toBe(201);
    expect(attachment.body.size).toBe(bytes.length);
    expect(attachment.body.key).toMatch(/-big_report\.bin$/);

    const external = 'https://cdn.example.com/docs/manual.pdf';
    const created = await api.post('/toDos', { title: 'With files', photo: photo.body.key, attachments: [attachment.body.key, external] }, ann.token);
    expect(created.status).toBe(201);
    expect(created.body.photo).toBe(photo.body.url);
    expect(created.body.attachments).toEqual([attachment.body.url, external]);
    const read = await api.get(`/toDos/${created.body.id}`, ann.token);
    expect(read.body).toMatchObject({ photo: photo.body.url, attachments: [attachment.body.url, external] });
    const list = await api.get<{ items: Rec[] }>('/toDos', ann.token);
    expect(list.body.items.find((r) => r.id === created.body.id)).toMatchObject({ photo: photo.body.url });

    const whole = await fetchBytes(attachment.body.url, ann.token);
    expect(whole.status).toBe(200);
    expect(sha256(whole.bytes)).toBe(sha256(bytes));
    expect(whole.headers.get('x-content-type-options')).toBe('nosniff');
    const image = await fetchBytes(photo.body.url, ann.token);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.bytes.equals(PNG)).toBe(true);

    const slice = await fetchBytes(attachment.body.url, ann.token, { range: 'bytes=1000-1999' });
    expect(slice.status).toBe(206);
    expect(slice.headers.get('content-range')).toBe(`bytes 1000-1999/${bytes.length}`);
    expect(slice.bytes.equals(bytes.subarray(1000, 2000))).toBe(true);
    const again = await fetchBytes(attachment.body.url, ann.token, { 'if-none-match': whole.headers.get('etag')! });
    expect(again.status).toBe(304);

    // A record read and sent back keeps its files: this version's URLs are taken back as keys.
    const resent = await api.patch(`/toDos/${created.body.id}`, { photo: read.body.photo, attachments: read.body.attachments }, ann.token);
    expect(resent.status).toBe(200);
    expect(resent.body).toMatchObject({ photo: photo.body.url, attachments: [attachment.body.url, external] });

    // Bob may not read Ann's to-do: the file is not his to fetch, and neither is it anyone's without a token.
    expect((await fetchBytes(photo.body.url, bob.token)).status).toBe(404);
    expect((await fetchBytes(photo.body.url, null)).status).toBe(404);
    // The builder acts as the administrator and sees every file.
    const admin = await fetch(photo.body.url, { headers: { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey! } });
    expect(admin.status).toBe(200);
    // Once no record refers to it (and Bob did not upload it), the file is Ann's alone as its uploader.
    await api.patch(`/toDos/${created.body.id}`, { photo: null }, ann.token);
    expect((await fetchBytes(photo.body.url, ann.token)).status).toBe(200);
    expect((await fetchBytes(photo.body.url, bob.token)).status).toBe(404);
  });

  it("lets the uploader fetch an upload no record refers to yet, and no one else", async () => {
    const mine = await upload(api, bob.token, Buffer.from('draft notes'), 'text/plain');
    expect(mine.status).toBe(201);
    expect((await fetchBytes(mine.body.url, bob.token)).bytes.toString()).toBe('draft notes');
    expect((await fetchBytes(mine.body.url, ann.token)).status).toBe(404);
    expect((await fetchBytes(`${api.base}/files/00000000-0000-7000-8000-000000000000`, ann.token)).status).toBe(404);
  });

  it("answers the signed-in user's own file fields as URLs too (/auth/me, log-in), and the file to them alone", async () => {
    const avatar = await upload(api, ann.token, PNG, 'image/png');
    const patched = await api.patch(`/users/${ann.user.id}`, { avatar: avatar.body.key }, ann.token);
    expect(patched.status).toBe(200);
    expect(patched.body.avatar).toBe(avatar.body.url);
    expect((await api.get('/auth/me', ann.token)).body.avatar).toBe(avatar.body.url);
    const login = await api.post<{ user: Rec }>('/auth/login', { email: 'ann@example.test', password: 'correct horse' });
    expect(login.body.user.avatar).toBe(avatar.body.url);
    expect((await fetchBytes(avatar.body.url, ann.token)).status).toBe(200);
    expect((await fetchBytes(avatar.body.url, bob.token)).status).toBe(404);
  });

  it('refuses http URLs, made-up keys and keys of another app with 422 naming the field, and changes nothing', async () => {
    const theirs = await upload(other, (await other.signup('Cy', 'cy@example.test')).token, PNG, 'image/png');
    expect(theirs.status).toBe(201);
    const record = await api.post('/toDos', { title: 'Kept' }, ann.token);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ photo: 'http://cdn.example.com/p.png' }, '/photo'],
      [{ photo: '0190d5f0-0000-7000-8000-000000000000-made-up.png' }, '/photo'],
      [{ photo: '../../etc/passwd' }, '/photo'],
      [{ photo: theirs.body.key }, '/photo'],
      [{ attachments: ['https://cdn.example.com/ok.pdf', 'javascript:alert(1)'] }, '/attachments/1'],
      [{ attachments: [theirs.body.key] }, '/attachments/0'],
    ];
    for (const [values, path] of cases) {
      const created = await api.post<ProblemBody>('/toDos', { title: 'Refused', ...values }, ann.token);
      expect(created.status, JSON.stringify(values)).toBe(422);
      expect(created.body.errors.map((e) => e.path)).toEqual([path]);
      const updated = await api.patch<ProblemBody>(`/toDos/${record.body.id}`, values, ann.token);
      expect(updated.status, JSON.stringify(values)).toBe(422);
      expect(updated.body.errors[0].path).toBe(path);
    }
    const titles = (await api.get<{ items: Rec[] }>('/toDos?limit=100', 'admin')).body.items.map((r) => r.title);
    expect(titles).not.toContain('Refused');
    expect((await api.get(`/toDos/${record.body.id}`, ann.token)).body).toMatchObject({ photo: null, attachments: [] });
  });

  it('answers 413 past the per-app limit, raw or multipart, and leaves neither bytes nor rows', async () => {
    const rowsBefore = await storedUnder(api.applicationId);
    const filesBefore = filesUnder(temp.dir).length;
    const raw = await upload(api, ann.token, randomBytes(LIMIT + 1), 'application/octet-stream');
    expect(raw.status).toBe(413);
    expect(raw.contentType).toContain('application/problem+json');
    expect(raw.body.detail).toContain('APPBUILDER_APP_FILE_MAX_BYTES');
    const form = new FormData();
    form.append('file', new Blob([randomBytes(LIMIT + 4096)]), 'too-big.bin');
    expect((await upload(api, ann.token, form)).status).toBe(413);
    expect(await storedUnder(api.applicationId)).toBe(rowsBefore);
    expect(filesUnder(temp.dir).length).toBe(filesBefore);
    // Exactly the limit is accepted.
    expect((await upload(api, ann.token, randomBytes(LIMIT), 'application/octet-stream')).status).toBe(201);
  });

  it("documents both routes and the field format in the version's OpenAPI", async () => {
    const doc = (await api.get<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>>; components: { schemas: Record<string, { properties: Record<string, unknown> }> } }>('/openapi.json')).body;
    expect(Object.keys(doc.paths['/files'].post.responses)).toEqual(expect.arrayContaining(['201', '401', '413']));
    expect(Object.keys(doc.paths['/files/{key}'].get.responses)).toEqual(expect.arrayContaining(['200', '206', '304', '404']));
    expect(JSON.stringify(doc.components.schemas.ToDo.properties.photo)).toContain('POST /files');
    expect(JSON.stringify(doc.components.schemas.ToDoCreate.properties.attachments)).toContain('https URL');
  });
});
