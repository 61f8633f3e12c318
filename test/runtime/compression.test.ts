// Compressed answers of the generated API (issue 43, src/runtime/http/compress.ts), over real HTTP
// on both drivers: a list above the threshold goes out as br or gzip when Accept-Encoding takes one
// (q-values honoured), decoding to the very bytes of the uncompressed answer, with
// `Vary: accept-encoding`; an answer below the threshold, or a client that takes neither, gets the
// plain bytes.
import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { compileApp } from '../../src/runtime/compiled-app.ts';
import { COMPRESS_MIN_BYTES } from '../../src/runtime/http/compress.ts';
import { endUserKey } from '../../bench/support/baseline.ts';
import { seedTodos } from '../../bench/runtime/outside.ts';
import type { EndUser } from '../../bench/support/setup.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp } from '../support/tenant.ts';
import { publish, todoScodeWithoutEvents } from './served-app.ts';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** GET without any decoding (fetch would ask for and undo the compression itself). */
function get(url: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe.each(await availableDrivers())('compressed answers on %s', (driver) => {
  let t: TestPlatform;
  let base: string;
  let user: EndUser;
  let plainList: Raw;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    const tenant = await createTenant(t, 'Compression');
    const created = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, created.id);
    const app = compileApp(created.id, created.serverVersion, created.scode as unknown as AppDefinition);
    [user] = await seedTodos(t.platform.db, app, await endUserKey(t.platform.db, created.id), { users: 1, todosPerUser: 25 });
    base = `${t.baseUrl}${t.config.appsPath}/${created.id}/api/v${created.serverVersion}`;
    plainList = await get(`${base}/toDos?limit=20`, { authorization: `Bearer ${user.token}` });
  });
  afterAll(() => t?.close());

  const list = (acceptEncoding: string) => get(`${base}/toDos?limit=20`, { authorization: `Bearer ${user.token}`, 'accept-encoding': acceptEncoding });

  it('answers a list plainly to a client that asks for no encoding', () => {
    expect(plainList.status).toBe(200);
    expect(plainList.headers['content-encoding']).toBeUndefined();
    expect(plainList.body.length).toBeGreaterThan(COMPRESS_MIN_BYTES);
    expect((JSON.parse(plainList.body.toString()) as { items: unknown[] }).items).toHaveLength(20);
    expect(plainList.headers.vary).toMatch(/accept-encoding/);
  });

  it('compresses a list with gzip, decoding to the same bytes', async () => {
    const reply = await list('gzip, deflate');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-encoding']).toBe('gzip');
    expect(reply.headers.vary).toMatch(/accept-encoding/);
    expect(Number(reply.headers['content-length'])).toBe(reply.body.length);
    expect(reply.body.length).toBeLessThan(plainList.body.length / 4);
    expect(gunzipSync(reply.body).equals(plainList.body)).toBe(true);
  });

  it('prefers br when both are welcome, and follows the q-values', async () => {
    const br = await list('gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).equals(plainList.body)).toBe(true);
    expect((await list('br;q=0.5, gzip')).headers['content-encoding']).toBe('gzip');
    const refused = await list('gzip;q=0, br;q=0');
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.body.equals(plainList.body)).toBe(true);
    expect((await list('identity')).headers['content-encoding']).toBeUndefined();
  });

  it('answers below the threshold plainly even to a client that takes gzip', async () => {
    const reply = await get(`${base}/toDos/${user.todoIds[0]}`, { authorization: `Bearer ${user.token}`, 'accept-encoding': 'gzip, br' });
    expect(reply.status).toBe(200);
    expect(reply.body.length).toBeLessThan(COMPRESS_MIN_BYTES);
    expect(reply.headers['content-encoding']).toBeUndefined();
    expect((JSON.parse(reply.body.toString()) as { id: string }).id).toBe(user.todoIds[0]);
  });
});
