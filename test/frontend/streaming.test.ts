/**
 * The frontend bundle download is streamed: a 32 MiB stored bundle (fed in as chunk
 * rows, far larger than any generated bundle) goes through spec endpoint 8 of the
 * real server to a slow reader. The answer arrives in many pieces, stopping the
 * reader stops the server (back-pressure), and the live memory of the process
 * (server and client share it) stays far below the bundle size throughout.
 * Memory is measured after a forced GC, so only what is really held counts; the
 * bytes are checked against the stored SHA-256.
 */
import { createHash } from 'node:crypto';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

const drivers = await availableDrivers();
const CHUNK = 256 * 1024;
const CHUNKS = 128;
const SIZE = CHUNK * CHUNKS; // 32 MiB
const MIB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Live bytes (JS heap and array buffers) after a full collection. */
function liveBytes(): number {
  // The second collection waits for the first one's background sweep of array buffers.
  gc();
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

/** Chunk `seq`: md5(seq) repeated to 256 KiB, so that the database can write it by itself. */
const chunkBytes = (seq: number): Buffer => Buffer.alloc(CHUNK, createHash('md5').update(String(seq)).digest());

/** Stores a complete bundle for (application, version), as the job would, and serves the version. */
async function storeLargeBundle(t: TestPlatform, applicationId: string, serverVersion: string): Promise<string> {
  const db = t.database.db.kysely;
  await sql`insert into appbuilder.frontend_bundle_chunks (application_id, server_version, seq, data)
    select ${applicationId}, ${serverVersion}, g, decode(repeat(md5(g::text), ${CHUNK / 16}), 'hex') from generate_series(0, ${CHUNKS - 1}) g`.execute(db);
  const hash = createHash('sha256');
  for (let seq = 0; seq < CHUNKS; seq++) hash.update(chunkBytes(seq));
  const sha256 = hash.digest('hex');
  await sql`insert into appbuilder.frontend_bundles (application_id, server_version, size_bytes, sha256, chunk_count, file_count) values (${applicationId}, ${serverVersion}, ${SIZE}, ${sha256}, ${CHUNKS}, 1)`.execute(db);
  // Served versions are what the download looks at; the runtime is not needed here.
  await sql`insert into appbuilder.deployments (application_id, server_version, state, published_at) values (${applicationId}, ${serverVersion}, 'active', now())`.execute(db);
  return sha256;
}

function open(t: TestPlatform, tenant: Tenant, applicationId: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    httpGet(
      `${t.baseUrl}/v1/applications/${applicationId}/frontendBundle`,
      { headers: { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey ?? '' } },
      resolve,
    ).on('error', reject);
  });
}

describe.each(drivers)('frontend bundle download is streamed (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: AppReply;
  let sha256: string;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Streaming');
    app = await createTodoApp(tenant);
    sha256 = await storeLargeBundle(t, app.id, app.serverVersion);
  }, 120_000);
  afterAll(() => t?.close());

  it('delivers 32 MiB in many pieces to a slow reader, holding a small fraction of it in memory', async () => {
    const baseline = liveBytes();
    const response = await open(t, tenant, app.id);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/zip');
    expect(Number(response.headers['content-length'])).toBe(SIZE);

    const hash = createHash('sha256');
    let received = 0;
    let pieces = 0;
    let peak = 0;
    let receivedAtPause = -1;
    let receivedAfterPause = -1;
    let pausedGrowth = 0;
    const done = new Promise<void>((resolve, reject) => {
      response.on('error', reject);
      response.on('end', resolve);
      response.on('data', (piece: Buffer) => {
        hash.update(piece);
        received += piece.length;
        pieces++;
        // A slow reader: stop after each piece, measure now and then, go on.
        response.pause();
        void (async () => {
          if (receivedAtPause < 0 && received >= 4 * MIB) {
            // Stop reading for a while: a server without back-pressure would read the rest now.
            receivedAtPause = received;
            await sleep(1500);
            pausedGrowth = liveBytes() - baseline;
            receivedAfterPause = received;
          }
          if (pieces % 64 === 0) peak = Math.max(peak, liveBytes() - baseline);
          else if (pieces % 4 === 0) await sleep(1);
          response.resume();
        })();
      });
    });
    const started = Date.now();
    await done;
    const seconds = (Date.now() - started) / 1000;

    expect(received).toBe(SIZE);
    expect(hash.digest('hex')).toBe(sha256);
    expect(pieces).toBeGreaterThan(CHUNKS);
    // Nothing arrives while the reader is paused, and meanwhile the server holds back too.
    expect(receivedAfterPause).toBe(receivedAtPause);
    expect(pausedGrowth).toBeLessThan(SIZE / 8);
    expect(peak).toBeLessThan(SIZE / 8);
    console.log(
      `[streaming ${driver}] ${SIZE / MIB} MiB in ${pieces} pieces, ${seconds.toFixed(1)} s; live memory growth: peak ${(peak / MIB).toFixed(1)} MiB, while paused ${(pausedGrowth / MIB).toFixed(1)} MiB`,
    );
  }, 120_000);
});
