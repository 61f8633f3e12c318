// `npm run bench:storage` (issue 13): upload and download throughput of the storage API
// (`POST /v1/storage/files`, `GET …/content`, filesystem driver) against a plain Node
// `pipeline(req, fs.createWriteStream)` / `pipeline(fs.createReadStream, res)` handler, both in
// their own processes on this machine, measured in alternating rounds in the same run; then the
// service's RSS while it takes and serves a 1 GiB file (sampled from /proc every 50 ms) against
// its idle RSS, and the sha256 of what came back. Prints figures and ratios; asserts nothing.
//
// Environment: BENCH_MB (size of each throughput transfer, default 256), BENCH_ROUNDS (default 3),
// BENCH_RSS_MB (the large file, default 1024), DATABASE_URL (else an embedded store in a temp dir).
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../test/support/ports.ts';

const MiB = 1024 * 1024;
const SIZE_MB = Number(process.env.BENCH_MB ?? 256);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RSS_MB = Number(process.env.BENCH_RSS_MB ?? 1024);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLIENT = { id: 'ak_bench_storage', secret: 'sk_bench_storage_secret_value_0123456789' };
const chunk = randomBytes(MiB);

function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/** Sends `mb` MiB (one random MiB repeated) as a streamed body; resolves with the answer and the seconds taken. */
function upload(url: string, mb: number, headers: Record<string, string>): Promise<{ status: number; body: string; seconds: number; sha256: string }> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    const started = performance.now();
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/octet-stream', 'content-length': String(mb * MiB) } }, (res) => {
      let body = '';
      res.on('data', (data: Buffer) => (body += data.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, seconds: (performance.now() - started) / 1000, sha256: hash.digest('hex') }));
    });
    req.on('error', reject);
    let sent = 0;
    const write = () => {
      while (sent < mb) {
        sent++;
        hash.update(chunk);
        if (!req.write(chunk)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

function download(url: string, headers: Record<string, string>): Promise<{ status: number; bytes: number; seconds: number; sha256: string }> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    const started = performance.now();
    let bytes = 0;
    request(url, { headers }, (res) => {
      res.on('data', (data: Buffer) => {
        bytes += data.length;
        hash.update(data);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, seconds: (performance.now() - started) / 1000, sha256: hash.digest('hex') }));
    })
      .on('error', reject)
      .end();
  });
}

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await fetch(url).then((r) => r.ok).catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} never answered`);
}

const root = mkdtempSync(join(tmpdir(), 'appbuilder-bench-storage-'));
const children: ChildProcess[] = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

async function startService(): Promise<{ child: ChildProcess; base: string; headers: Record<string, string> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(ROOT, 'bin/appbuilder.js'), 'serve'], {
    env: {
      ...process.env,
      ...(process.env.DATABASE_URL ? {} : { APPBUILDER_DATA_DIR: join(root, 'data') }),
      APPBUILDER_MASTER_KEY: randomBytes(32).toString('base64'),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      APPBUILDER_BOOTSTRAP_CLIENT_ID: CLIENT.id,
      APPBUILDER_BOOTSTRAP_CLIENT_SECRET: CLIENT.secret,
      APPBUILDER_STORAGE_DIR: join(root, 'files'),
      APPBUILDER_STORAGE_MAX_FILE_BYTES: String(4 * 1024 * MiB),
      APPBUILDER_STORAGE_QUOTA_BYTES: String(16 * 1024 * MiB),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/healthz`);
  const token = await fetch(`${base}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: CLIENT.id, client_secret: CLIENT.secret }),
  }).then((r) => r.json() as Promise<{ access_token: string }>);
  return { child, base, headers: { authorization: `Bearer ${token.access_token}`, 'x-svc-api-client': CLIENT.id } };
}

async function startPlain(): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/storage/plain-server.ts'), root], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return { child, base: `http://127.0.0.1:${line.toString().trim()}` };
}

const service = await startService();
const pid = service.child.pid!;
// Idle: started and signed in, before any file went through it.
await new Promise((resolve) => setTimeout(resolve, 1000));
const idle = rssMb(pid);
const plain = await startPlain();
let peakRounds = idle;
let peakUp = idle;
let peakDown = idle;
let phase: 'rounds' | 'up' | 'down' = 'rounds';
const sampler = setInterval(() => {
  const now = rssMb(pid);
  if (phase === 'rounds') peakRounds = Math.max(peakRounds, now);
  else if (phase === 'up') peakUp = Math.max(peakUp, now);
  else peakDown = Math.max(peakDown, now);
}, 50);
const mbps = (mb: number, seconds: number) => mb / seconds;
const totals = { serviceUp: 0, plainUp: 0, serviceDown: 0, plainDown: 0 };
console.log(`storage bench: ${SIZE_MB} MiB per transfer, ${ROUNDS} rounds (alternating), filesystem driver, ${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}`);
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? ['service', 'plain'] : ['plain', 'service'];
  for (const who of order) {
    if (who === 'service') {
      const up = await upload(`${service.base}/v1/storage/files?path=bench/through.bin&overwrite=true`, SIZE_MB, service.headers);
      if (up.status !== 201 && up.status !== 200) throw new Error(`upload: ${up.status} ${up.body}`);
      const id = (JSON.parse(up.body) as { id: string }).id;
      const down = await download(`${service.base}/v1/storage/files/${id}/content`, service.headers);
      if (down.sha256 !== up.sha256) throw new Error('sha256 differs');
      totals.serviceUp += mbps(SIZE_MB, up.seconds);
      totals.serviceDown += mbps(SIZE_MB, down.seconds);
      console.log(`  round ${round + 1} service: upload ${mbps(SIZE_MB, up.seconds).toFixed(0)} MB/s, download ${mbps(SIZE_MB, down.seconds).toFixed(0)} MB/s`);
    } else {
      const up = await upload(`${plain.base}/`, SIZE_MB, {});
      const down = await download(`${plain.base}/`, {});
      if (down.sha256 !== up.sha256) throw new Error('sha256 differs (plain)');
      totals.plainUp += mbps(SIZE_MB, up.seconds);
      totals.plainDown += mbps(SIZE_MB, down.seconds);
      console.log(`  round ${round + 1} plain:   upload ${mbps(SIZE_MB, up.seconds).toFixed(0)} MB/s, download ${mbps(SIZE_MB, down.seconds).toFixed(0)} MB/s`);
    }
  }
}
const mean = (total: number) => total / ROUNDS;
console.log(`upload:   service ${mean(totals.serviceUp).toFixed(0)} MB/s, plain ${mean(totals.plainUp).toFixed(0)} MB/s, ratio ${(totals.serviceUp / totals.plainUp).toFixed(2)}× (target ≥ 0.8×)`);
console.log(`download: service ${mean(totals.serviceDown).toFixed(0)} MB/s, plain ${mean(totals.plainDown).toFixed(0)} MB/s, ratio ${(totals.serviceDown / totals.plainDown).toFixed(2)}× (target ≥ 0.8×)`);
plain.child.kill('SIGTERM');

// Memory: the service's RSS while a RSS_MB file goes in and comes back out, against its idle RSS at start.
phase = 'up';
const big = await upload(`${service.base}/v1/storage/files?path=bench/big.bin&overwrite=true`, RSS_MB, service.headers);
if (big.status !== 201 && big.status !== 200) throw new Error(`upload: ${big.status} ${big.body}`);
const bigFile = JSON.parse(big.body) as { id: string; sha256: string };
phase = 'down';
const back = await download(`${service.base}/v1/storage/files/${bigFile.id}/content`, service.headers);
clearInterval(sampler);
console.log(`memory (${RSS_MB} MiB file): idle RSS at start ${idle.toFixed(0)} MB; peak during the rounds ${peakRounds.toFixed(0)} MB (+${(peakRounds - idle).toFixed(0)}), during the upload ${peakUp.toFixed(0)} MB (+${(peakUp - idle).toFixed(0)}), during download ${peakDown.toFixed(0)} MB (+${(peakDown - idle).toFixed(0)}); budget +64 MB`);
console.log(`sha256: sent ${big.sha256.slice(0, 16)}…, stored ${bigFile.sha256.slice(0, 16)}…, received ${back.sha256.slice(0, 16)}… → ${big.sha256 === bigFile.sha256 && back.sha256 === big.sha256 ? 'match' : 'MISMATCH'}`);
service.child.kill('SIGTERM');
await once(service.child, 'exit');
process.exit(0);
