// Issue 13: the S3-compatible driver through @aws-sdk/client-s3 against a real S3-compatible
// server (s3rver, started here on a free port over a temp directory): the storage API on top of
// it (multipart uploads past 5 MiB, ranges, 413 leaving no object, delete) and the orphan sweep.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadStorageConfig, type StorageConfig } from '../../src/files/config.ts';
import { S3Driver } from '../../src/files/drivers/s3.ts';
import { sweepOrphans } from '../../src/files/sweeper.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { getBytes, MiB, uploadRaw } from './support.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const BUCKET = 'appbuilder-files';

describe.each(await availableDrivers())('S3 driver against s3rver on %s', (driver) => {
  const dir = mkdtempSync(join(tmpdir(), 'appbuilder-s3rver-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: BUCKET }] });
  let storage: StorageConfig;
  let s3: S3Driver;
  let t: TestPlatform;
  let tenant: Tenant;

  beforeAll(async () => {
    const { port } = (await server.run()) as { port: number };
    storage = {
      ...loadStorageConfig(
        {
          APPBUILDER_STORAGE_S3_BUCKET: BUCKET,
          APPBUILDER_STORAGE_S3_ENDPOINT: `http://127.0.0.1:${port}`,
          // s3rver's fixed development credentials.
          APPBUILDER_STORAGE_S3_ACCESS_KEY_ID: 'S3RVER',
          APPBUILDER_STORAGE_S3_SECRET_ACCESS_KEY: 'S3RVER',
          APPBUILDER_STORAGE_S3_PREFIX: 'test/',
        },
        dir,
      ),
      maxFileBytes: 20 * MiB,
    };
    expect(storage.driver).toBe('s3');
    s3 = new S3Driver(storage.s3!);
    t = await startTestPlatform(driver, { storage });
    tenant = await createTenant(t, 'S3 files');
  });
  afterAll(async () => {
    await t?.close();
    s3?.close();
    await server.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });

  const objects = async () => {
    const keys: string[] = [];
    for await (const blob of s3.list()) keys.push(blob.key);
    return keys.sort();
  };

  it('stores a 12 MiB upload as a multipart object, serves it whole and in ranges, and deletes it', async () => {
    expect(t.platform.services.files.driver.name).toBe('s3');
    const bytes = randomBytes(12 * MiB);
    const file = await uploadRaw(tenant.api, 'path=s3/big.bin', bytes);
    expect(file.status).toBe(201);
    expect(file.body.sha256).toBe(sha256(bytes));
    expect(await objects()).toHaveLength(1);
    const whole = await getBytes(tenant.api, `/v1/storage/files/${file.body.id}/content`);
    expect(sha256(whole.bytes)).toBe(sha256(bytes));
    for (const [start, end] of [[0, 99], [5 * MiB - 10, 5 * MiB + 10], [12 * MiB - 1, 12 * MiB - 1]]) {
      const part = await getBytes(tenant.api, `/v1/storage/files/${file.body.id}/content`, { range: `bytes=${start}-${end}` });
      expect(part.status).toBe(206);
      expect(part.bytes.equals(bytes.subarray(start, end + 1))).toBe(true);
    }
    expect((await tenant.api.delete(`/v1/storage/files/${file.body.id}`)).status).toBe(204);
    expect(await objects()).toEqual([]);
  });

  it('leaves no object behind a refused (413) upload, and replaces an object on overwrite', async () => {
    const over = await uploadRaw(tenant.api, 'path=s3/too-big.bin', randomBytes(21 * MiB));
    expect(over.status).toBe(413);
    // Streamed without a Content-Length: refused on the way, after parts went up; the upload is aborted.
    const big = randomBytes(21 * MiB);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < big.length; i += MiB) controller.enqueue(big.subarray(i, i + MiB));
        controller.close();
      },
    });
    const streamed = await uploadRaw(tenant.api, 'path=s3/too-big.bin', stream);
    expect(streamed.status).toBe(413);
    expect(String(streamed.body.detail)).toContain('APPBUILDER_STORAGE_MAX_FILE_BYTES');
    expect(await objects()).toEqual([]);
    expect((await tenant.api.get<{ metadata: { total: number } }>('/v1/storage/files')).body.metadata.total).toBe(0);
    const one = await uploadRaw(tenant.api, 'path=s3/a.txt', Buffer.from('one'), { 'content-type': 'text/plain' });
    const two = await uploadRaw(tenant.api, 'path=s3/a.txt&overwrite=true', Buffer.from('two'), { 'content-type': 'text/plain' });
    expect([one.status, two.status]).toEqual([201, 200]);
    expect(await objects()).toHaveLength(1);
    expect((await getBytes(tenant.api, `/v1/storage/files/${one.body.id}/content`)).bytes.toString()).toBe('two');
  });

  it('sweeps objects no row refers to, and keeps those a row refers to', async () => {
    const orphan = '01900000-0000-7000-8000-000000000001';
    await s3.put(orphan, Readable.from([Buffer.from('left by a crash')]));
    expect(await objects()).toContain(orphan);
    const result = await sweepOrphans(t.platform.db, s3, 0);
    expect(result.orphans).toBe(1);
    const left = await objects();
    expect(left).not.toContain(orphan);
    expect(left).toHaveLength(1);
  });
});
