// Issue 13: the storage group (DESIGN §12) over the filesystem driver, on a real server and both
// databases: streamed uploads (raw and multipart), path rules, overwrite, limits, listing,
// content with ETag / Range / If-None-Match, safe headers, signed URLs and tenant scoping.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { filesUnder, getBytes, MiB, tempStorage, uploadRaw } from './support.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a1c6d1e40000000049454e44ae426082', 'hex');

describe.each(await availableDrivers())('storage API on %s', (driver) => {
  let t: TestPlatform;
  let a: Tenant;
  let b: Tenant;
  const temp = tempStorage({ maxFileBytes: 2 * MiB, quotaBytes: 5 * MiB });

  beforeAll(async () => {
    t = await startTestPlatform(driver, { storage: temp.storage });
    a = await createTenant(t, 'Files A');
    b = await createTenant(t, 'Files B');
  });
  afterAll(async () => {
    await t?.close();
    temp.cleanup();
  });

  it('stores a raw upload and a multipart one, with size, sha256 and type; lists them by prefix and pages', async () => {
    const bytes = randomBytes(300_000);
    const raw = await uploadRaw(a.api, 'path=docs/report.bin', bytes);
    expect(raw.status).toBe(201);
    expect(raw.body).toMatchObject({ path: 'docs/report.bin', size: bytes.length, sha256: sha256(bytes), contentType: 'application/octet-stream', builderId: null });

    const form = new FormData();
    form.append('path', 'images/dot.png');
    form.append('file', new Blob([PNG], { type: 'image/png' }), 'dot.png');
    const multi = await uploadRaw(a.api, '', form, {});
    expect(multi.status).toBe(201);
    expect(multi.body).toMatchObject({ path: 'images/dot.png', size: PNG.length, sha256: sha256(PNG), contentType: 'image/png' });

    const meta = await a.api.get<Record<string, unknown>>(`/v1/storage/files/${raw.body.id}`);
    expect(meta.status).toBe(200);
    expect(meta.body).toEqual(raw.body);

    const docs = await a.api.get<{ items: Array<{ path: string }>; metadata: { total: number } }>('/v1/storage/files?prefix=docs/');
    expect(docs.body.items.map((f) => f.path)).toEqual(['docs/report.bin']);
    const page = await a.api.get<{ items: Array<{ path: string }>; metadata: { total: number } }>('/v1/storage/files?limit=1&offset=1');
    expect(page.body.metadata.total).toBe(2);
    expect(page.body.items.map((f) => f.path)).toEqual(['images/dot.png']);
  });

  it('refuses hostile paths with 400 naming /path, and writes nothing for them', async () => {
    const before = filesUnder(temp.dir).length;
    for (const path of ['../etc/passwd', 'a/../../b', '%2e%2e/secret', 'a/%2E%2e/b', '/absolute/path', 'back\\slash', 'nul\u0000byte', 'a//b', 'a/./b', '', 'x'.repeat(1025)]) {
      const answer = await uploadRaw(a.api, `path=${encodeURIComponent(path)}`, Buffer.from('hi'));
      expect(answer.status, JSON.stringify(path)).toBe(400);
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect(answer.body.errors?.[0]?.path).toBe('/path');
    }
    expect(filesUnder(temp.dir).length).toBe(before);
    const list = await a.api.get<{ metadata: { total: number } }>('/v1/storage/files');
    expect(list.body.metadata.total).toBe(2);
  });

  it('answers 409 for a taken path and replaces it with overwrite=true (200), removing the old bytes', async () => {
    const first = await uploadRaw(a.api, 'path=notes/one.txt', Buffer.from('first'), { 'content-type': 'text/plain' });
    expect(first.status).toBe(201);
    const taken = await uploadRaw(a.api, 'path=notes/one.txt', Buffer.from('second'), { 'content-type': 'text/plain' });
    expect(taken.status).toBe(409);
    const blobs = filesUnder(temp.dir).length;
    const replaced = await uploadRaw(a.api, 'path=notes/one.txt&overwrite=true', Buffer.from('second!'), { 'content-type': 'text/plain' });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id: first.body.id, size: 7, sha256: sha256(Buffer.from('second!')) });
    expect(filesUnder(temp.dir).length).toBe(blobs);
    const content = await getBytes(a.api, `/v1/storage/files/${first.body.id}/content`);
    expect(content.bytes.toString()).toBe('second!');
  });

  it('refuses a file over the size limit and one over the quota with 413, leaving no row and no bytes', async () => {
    const before = filesUnder(temp.dir);
    const list = async () => (await a.api.get<{ metadata: { total: number } }>('/v1/storage/files')).body.metadata.total;
    const rows = await list();
    // Streamed with no Content-Length: the limit is found on the way.
    const big = randomBytes(3 * MiB);
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < big.length; i += 64 * 1024) controller.enqueue(big.subarray(i, i + 64 * 1024));
        controller.close();
      },
    });
    const over = await uploadRaw(a.api, 'path=big/too-large.bin', stream);
    expect(over.status).toBe(413);
    expect(over.headers.get('content-type')).toContain('application/problem+json');
    expect(String(over.body.detail)).toContain('APPBUILDER_STORAGE_MAX_FILE_BYTES');
    // Within the file limit, but the customer already holds ~0.3 MiB; 2 + 2 + 2 MiB passes 5 MiB.
    expect((await uploadRaw(a.api, 'path=big/1.bin', randomBytes(2 * MiB))).status).toBe(201);
    expect((await uploadRaw(a.api, 'path=big/2.bin', randomBytes(2 * MiB))).status).toBe(201);
    const quota = await uploadRaw(a.api, 'path=big/3.bin', randomBytes(2 * MiB));
    expect(quota.status).toBe(413);
    expect(String(quota.body.detail)).toContain('APPBUILDER_STORAGE_QUOTA_BYTES');
    expect(await list()).toBe(rows + 2);
    expect(filesUnder(temp.dir).length).toBe(before.length + 2);
    // Another customer has its own quota.
    expect((await uploadRaw(b.api, 'path=big/3.bin', randomBytes(2 * MiB))).status).toBe(201);
    for (const name of ['big/1.bin', 'big/2.bin']) {
      const found = await a.api.get<{ items: Array<{ id: string }> }>(`/v1/storage/files?prefix=${name}`);
      expect((await a.api.delete(`/v1/storage/files/${found.body.items[0].id}`)).status).toBe(204);
    }
  });

  it('serves content with ETag, Last-Modified, nosniff; three ranges equal the slices; 416 past the end; 304 on a match', async () => {
    const bytes = randomBytes(100_000);
    const file = await uploadRaw(a.api, 'path=ranges/data.bin', bytes);
    const url = `/v1/storage/files/${file.body.id}/content`;
    const whole = await getBytes(a.api, url);
    expect(whole.status).toBe(200);
    expect(sha256(whole.bytes)).toBe(sha256(bytes));
    expect(whole.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.headers.get('x-content-type-options')).toBe('nosniff');
    expect(new Date(whole.headers.get('last-modified')!).getTime()).toBeGreaterThan(0);
    for (const [start, end] of [[0, 0], [1000, 4999], [99_000, 99_999]]) {
      const part = await getBytes(a.api, url, { range: `bytes=${start}-${end}` });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes ${start}-${end}/${bytes.length}`);
      expect(part.bytes.equals(bytes.subarray(start, end + 1))).toBe(true);
    }
    const suffix = await getBytes(a.api, url, { range: 'bytes=-10' });
    expect(suffix.bytes.equals(bytes.subarray(bytes.length - 10))).toBe(true);
    const unsatisfiable = await getBytes(a.api, url, { range: 'bytes=100000-100010' });
    expect(unsatisfiable.status).toBe(416);
    expect(unsatisfiable.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    const notModified = await getBytes(a.api, url, { 'if-none-match': whole.headers.get('etag')! });
    expect(notModified.status).toBe(304);
    expect(notModified.bytes.length).toBe(0);
    expect((await getBytes(a.api, url, { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('serves active content as an attachment, and an HTML page declared as an image as octet-stream', async () => {
    const html = Buffer.from('<!doctype html><script>alert(document.cookie)</script>');
    const page = await uploadRaw(a.api, 'active/page.html', html, { 'content-type': 'text/html' });
    const asPage = await uploadRaw(a.api, 'path=active/page.html', html, { 'content-type': 'text/html' });
    expect(page.status).toBe(400);
    expect(asPage.status).toBe(201);
    const served = await getBytes(a.api, `/v1/storage/files/${asPage.body.id}/content`);
    expect(served.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(served.headers.get('content-security-policy')).toContain('sandbox');

    const svg = await uploadRaw(a.api, 'path=active/logo.svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'), { 'content-type': 'image/svg+xml' });
    expect((await getBytes(a.api, `/v1/storage/files/${svg.body.id}/content`)).headers.get('content-disposition')).toMatch(/^attachment;/);

    const disguised = await uploadRaw(a.api, 'path=active/cat.png', html, { 'content-type': 'image/png' });
    expect(disguised.body.contentType).toBe('application/octet-stream');
    const asImage = await getBytes(a.api, `/v1/storage/files/${disguised.body.id}/content`);
    expect(asImage.headers.get('content-type')).toBe('application/octet-stream');
    expect(asImage.headers.get('x-content-type-options')).toBe('nosniff');

    // Real PNG bytes declared as text are stored as what they are.
    const png = await uploadRaw(a.api, 'path=active/really.png', PNG, { 'content-type': 'text/plain' });
    expect(png.body.contentType).toBe('image/png');
  });

  it('keeps customers apart: another customer’s file is 404 for every route, and absent from its list', async () => {
    const mine = await uploadRaw(a.api, 'path=private/a.txt', Buffer.from('A only'), { 'content-type': 'text/plain' });
    for (const path of [`/v1/storage/files/${mine.body.id}`, `/v1/storage/files/${mine.body.id}/content`]) {
      expect((await b.api.get(path)).status).toBe(404);
    }
    expect((await b.api.post(`/v1/storage/files/${mine.body.id}/signed-url`, {})).status).toBe(404);
    expect((await b.api.delete(`/v1/storage/files/${mine.body.id}`)).status).toBe(404);
    const list = await b.api.get<{ items: Array<{ path: string }> }>('/v1/storage/files?prefix=private/');
    expect(list.body.items).toEqual([]);
    // The same path is free for the other customer.
    expect((await uploadRaw(b.api, 'path=private/a.txt', Buffer.from('B'), { 'content-type': 'text/plain' })).status).toBe(201);
    expect((await getBytes(a.api, `/v1/storage/files/${mine.body.id}/content`)).bytes.toString()).toBe('A only');
    // Without credentials: 401.
    expect((await fetch(`${t.baseUrl}/v1/storage/files/${mine.body.id}`)).status).toBe(401);
  });

  it('signs URLs anyone may GET (ranges too) until expiry; tampered, expired, replaced and deleted ones are refused', async () => {
    const bytes = randomBytes(5000);
    const file = await uploadRaw(a.api, 'path=signed/file.bin', bytes);
    const signed = await a.api.post<{ url: string; expiresAt: string }>(`/v1/storage/files/${file.body.id}/signed-url`, { expiresIn: 60 });
    expect(signed.status).toBe(200);
    expect(Date.parse(signed.body.expiresAt) - Date.now()).toBeGreaterThan(50_000);
    const open = await fetch(signed.body.url);
    expect(open.status).toBe(200);
    expect(Buffer.from(await open.arrayBuffer()).equals(bytes)).toBe(true);
    const ranged = await fetch(signed.body.url, { headers: { range: 'bytes=10-19' } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(10, 20))).toBe(true);

    const url = new URL(signed.body.url);
    const tampered = new URL(url);
    tampered.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expect((await fetch(tampered)).status).toBe(403);
    const badSignature = new URL(url);
    badSignature.searchParams.set('signature', `${url.searchParams.get('signature')!.slice(0, -2)}AA`);
    expect((await fetch(badSignature)).status).toBe(403);
    expect((await a.api.post(`/v1/storage/files/${file.body.id}/signed-url`, { expiresIn: 604_801 })).status).toBe(400);

    const short = await a.api.post<{ url: string }>(`/v1/storage/files/${file.body.id}/signed-url`, { expiresIn: 1 });
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const expired = await fetch(short.body.url);
    expect(expired.status).toBe(403);
    expect(((await expired.json()) as { detail: string }).detail).toContain('expired');

    expect((await uploadRaw(a.api, 'path=signed/file.bin&overwrite=true', randomBytes(10))).status).toBe(200);
    expect((await fetch(signed.body.url)).status).toBe(403);
    const again = await a.api.post<{ url: string }>(`/v1/storage/files/${file.body.id}/signed-url`, {});
    expect((await fetch(again.body.url)).status).toBe(200);
    expect((await a.api.delete(`/v1/storage/files/${file.body.id}`)).status).toBe(204);
    expect((await fetch(again.body.url)).status).toBe(404);
    expect((await a.api.get(`/v1/storage/files/${file.body.id}`)).status).toBe(404);
  });
});
