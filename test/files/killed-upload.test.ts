// Issue 13 must-show: a real `appbuilder serve` killed with SIGKILL in the middle of a 200 MB upload
// leaves no row; after the sweeper runs (at the next start) no orphan bytes remain; an upload that
// completed before the kill survives, bytes and row. On PGlite (a data dir) and PostgreSQL.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { availableDrivers, createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { ApiClient } from '../support/client.ts';
import { BOOTSTRAP } from '../support/platform.ts';
import { filesUnder, getBytes, MiB, uploadRaw } from './support.ts';
import { freePort } from '../support/ports.ts';

const BIN = fileURLToPath(new URL('../../bin/appbuilder.js', import.meta.url));
const TOTAL = 200 * MiB;

async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 60_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await Promise.resolve(probe()).catch(() => null);
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const partials = (dir: string) => {
  try {
    return readdirSync(join(dir, 'tmp')).map((name) => join(dir, 'tmp', name));
  } catch {
    return [];
  }
};

describe.each(await availableDrivers())('kill -9 during an upload on %s', (driver) => {
  const root = mkdtempSync(join(tmpdir(), 'appbuilder-kill-'));
  const storageDir = join(root, 'files');
  let database: TestDatabase | null = null;
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await database?.drop();
    rmSync(root, { recursive: true, force: true });
  });

  async function serve(env: Record<string, string>): Promise<{ child: ChildProcess; base: string }> {
    const port = await freePort();
    const store: Record<string, string> = database ? { DATABASE_URL: database.url! } : { DATABASE_URL: '', APPBUILDER_DATA_DIR: join(root, 'data') };
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: {
        ...process.env,
        ...store,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        APPBUILDER_MASTER_KEY: randomKey,
        APPBUILDER_BOOTSTRAP_CLIENT_ID: BOOTSTRAP.id,
        APPBUILDER_BOOTSTRAP_CLIENT_SECRET: BOOTSTRAP.secret,
        APPBUILDER_STORAGE_DIR: storageDir,
        APPBUILDER_STORAGE_MAX_FILE_BYTES: String(TOTAL * 2),
        APPBUILDER_STORAGE_QUOTA_BYTES: String(TOTAL * 4),
        ...env,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(child);
    const base = `http://127.0.0.1:${port}`;
    await waitFor('the server', async () => (await fetch(`${base}/healthz`)).ok, 90_000);
    return { child, base };
  }
  const randomKey = randomBytes(32).toString('base64');

  it('leaves no row and, after the sweep, no bytes of the killed upload; the completed one survives', { timeout: 240_000 }, async () => {
    if (driver === 'postgres') database = await createTestDatabase('postgres');
    const first = await serve({ APPBUILDER_STORAGE_SWEEP_AGE: '3600' });
    const api = await ApiClient.login(first.base, { apiKey: BOOTSTRAP.id, secret: BOOTSTRAP.secret });
    const kept = randomBytes(3 * MiB);
    const done = await uploadRaw(api, 'path=kept/done.bin', kept);
    expect(done.status).toBe(201);

    // The 200 MB upload, sent as fast as the server takes it; killed once half of it is on disk.
    const upload = request(`${first.base}/v1/storage/files?path=killed/big.bin`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.token}`, 'x-svc-api-client': BOOTSTRAP.id, 'content-type': 'application/octet-stream', 'content-length': String(TOTAL) },
    });
    upload.on('error', () => {}); // the server dies under it
    const chunk = randomBytes(MiB);
    let sent = 0;
    const sending = (async () => {
      while (sent < TOTAL && !upload.destroyed) {
        sent += chunk.length;
        if (upload.write(chunk)) continue;
        await new Promise<void>((resolve) => {
          const go = () => {
            upload.off('drain', go);
            upload.off('close', go);
            resolve();
          };
          upload.on('drain', go);
          upload.on('close', go);
        });
      }
    })();
    const partial = await waitFor('half of the upload on disk', () => partials(storageDir).find((path) => statSync(path).size >= TOTAL / 2));
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    upload.destroy();
    await sending;
    expect(sent).toBeLessThan(TOTAL);
    expect(statSync(partial).size).toBeLessThan(TOTAL);

    // The next start sweeps (age 0 here, so the test need not wait an hour).
    const second = await serve({ APPBUILDER_STORAGE_SWEEP_AGE: '0' });
    const again = await ApiClient.login(second.base, { apiKey: BOOTSTRAP.id, secret: BOOTSTRAP.secret });
    await waitFor('the sweep of the partial upload', () => partials(storageDir).length === 0);
    const list = await again.get<{ items: Array<{ path: string; sha256: string }> }>('/v1/storage/files');
    expect(list.body.items.map((file) => file.path)).toEqual(['kept/done.bin']);
    const bytes = await getBytes(again, `/v1/storage/files/${done.body.id}/content`);
    expect(bytes.status).toBe(200);
    expect(createHash('sha256').update(bytes.bytes).digest('hex')).toBe(createHash('sha256').update(kept).digest('hex'));
    // On disk: the one blob, nothing else.
    const onDisk = filesUnder(storageDir);
    expect(onDisk).toHaveLength(1);
    expect(onDisk[0]).toMatch(/\/blobs\/[0-9a-f]{2}\/[0-9a-f-]{36}$/);
    second.child.kill('SIGTERM');
    await once(second.child, 'exit');
  });
});
