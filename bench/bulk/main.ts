// `npm run bench:bulk` (docs/batch-and-export.md), on PostgreSQL:
//   - batch: 100 creates as one `POST /batch` against the same 100 as single `POST /toDos`
//     requests one after the other (an end user, rules applied; keep-alive), BENCH_ROUNDS rounds
//     alternating the order; the median of each and their ratio (target ≥ 5×);
//   - export: every to-do (BENCH_ROWS, default 1,000,000, seeded by SQL) as NDJSON from
//     `GET /toDos/export` against a hand-written `pg` server streaming the same bytes (baseline.ts),
//     each read to the end by a client in this process: time, rows/s, and the process's peak RSS
//     over its RSS at the start (VmHWM reset before each; target < 100 MB); the bytes compared
//     by SHA-256. Then the CSV export's time.
// Asserts nothing. The machine may be shared: the figures are of this run only.
// Environment: BENCH_ROWS (default 1000000), BENCH_TODOS_PER_USER (default 10), BENCH_ROUNDS (default 5),
// BENCH_EXPORT (default 1; 0 measures the batch alone).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { postgresAvailable } from '../../test/support/databases.ts';
import { startExportBaseline } from './baseline.ts';
import { startBulkService } from './setup.ts';

const env = process.env;
const ROWS = Number(env.BENCH_ROWS ?? 1_000_000);
const ROUNDS = Math.max(1, Number(env.BENCH_ROUNDS ?? 5));
/** Ten to-dos per user: an embedded user's `todos` (its first ids) costs the same on both sides whatever the row count. */
const PER_USER = Math.max(1, Number(env.BENCH_TODOS_PER_USER ?? 10));
const USERS = Math.max(2, Math.ceil(ROWS / PER_USER));

// A full collection before each measurement, so each starts from the live heap alone.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

function memory(): { rss: number; peak: number } {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** Reads a streamed answer to its end, hashing it; nothing is kept. */
async function drain(url: string, headers: Record<string, string>): Promise<{ ms: number; bytes: number; lines: number; sha256: string; peakOverStart: number; status: number }> {
  collect();
  // Writing 5 to clear_refs resets the peak (VmHWM) to the current RSS (Linux, proc(5)).
  writeFileSync('/proc/self/clear_refs', '5');
  const start = memory().rss;
  const began = performance.now();
  const response = await fetch(url, { headers });
  const hash = createHash('sha256');
  let bytes = 0;
  let lines = 0;
  for await (const chunk of response.body!) {
    const data = chunk as Uint8Array;
    hash.update(data);
    bytes += data.byteLength;
    for (const byte of data) if (byte === 10) lines++;
  }
  const ms = performance.now() - began;
  return { ms, bytes, lines, sha256: hash.digest('hex'), peakOverStart: memory().peak - start, status: response.status };
}

async function batchBench(apiUrl: string, token: string): Promise<void> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const userId = (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { sub: string }).sub;
  const body = (i: number) => ({ title: `Bench ${i}`, status: 'open', user: userId });
  const singles = async () => {
    const began = performance.now();
    for (let i = 0; i < 100; i++) {
      const response = await fetch(`${apiUrl}/toDos`, { method: 'POST', headers, body: JSON.stringify(body(i)) });
      await response.arrayBuffer();
      if (response.status !== 201) throw new Error(`POST /toDos answered ${response.status}`);
    }
    return performance.now() - began;
  };
  const batch = async () => {
    const began = performance.now();
    const response = await fetch(`${apiUrl}/batch`, { method: 'POST', headers, body: JSON.stringify({ requests: Array.from({ length: 100 }, (_, i) => ({ method: 'POST', path: '/toDos', body: body(i) })) }) });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`POST /batch answered ${response.status}`);
    return performance.now() - began;
  };
  // Untimed: the JIT and the prepared statements of both paths.
  await singles();
  await batch();
  const single: number[] = [];
  const batched: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      single.push(await singles());
      batched.push(await batch());
    } else {
      batched.push(await batch());
      single.push(await singles());
    }
  }
  const s = median(single);
  const b = median(batched);
  console.log(`  batch: 100 creates as 100 requests ${s.toFixed(0)} ms, as one batch ${b.toFixed(0)} ms (median of ${ROUNDS}): ${(s / b).toFixed(1)}× faster (target ≥ 5×)`);
}

async function main(): Promise<void> {
  if (!(await postgresAvailable())) {
    console.log('bench:bulk needs PostgreSQL (DATABASE_URL); skipped.');
    return;
  }
  console.log(`== bulk on postgres: ${ROWS} to-dos (${USERS} users)`);
  const seeding = performance.now();
  const service = await startBulkService(USERS, PER_USER);
  console.log(`  seeded in ${((performance.now() - seeding) / 1000).toFixed(0)} s`);
  const adminHeaders = { authorization: `Bearer ${service.tenant.api.token}`, 'x-svc-api-client': service.tenant.api.apiKey! };
  const baseline = await startExportBaseline(service.app, service.connectionString);
  try {
    await batchBench(service.apiUrl, service.token);
    if (env.BENCH_EXPORT === '0') return;
    // Untimed: each side's code warmed on a first export, the heap grown to its working size.
    await drain(`${service.apiUrl}/toDos/export?format=ndjson`, adminHeaders);
    await drain(`${baseline.url}/toDos/export`, {});
    // The batch's rows are exported too: both sides read the same table.
    const ours = await drain(`${service.apiUrl}/toDos/export?format=ndjson`, adminHeaders);
    const raw = await drain(`${baseline.url}/toDos/export`, {});
    for (const [name, run] of [['service ', ours], ['baseline', raw]] as const) {
      console.log(`  export ${name}: ${run.lines} rows, ${mb(run.bytes)} MB in ${(run.ms / 1000).toFixed(1)} s (${Math.round(run.lines / (run.ms / 1000))} rows/s), peak RSS − start ${mb(run.peakOverStart)} MB (status ${run.status})`);
    }
    console.log(`  export: service/baseline throughput ${(raw.ms / ours.ms).toFixed(2)}×, same bytes: ${ours.sha256 === raw.sha256 ? 'yes' : 'NO'}; RSS flat (< 100 MB): ${ours.peakOverStart < 100 * 1024 * 1024 ? 'yes' : 'NO'}`);
    const csv = await drain(`${service.apiUrl}/toDos/export?format=csv`, adminHeaders);
    console.log(`  export CSV: ${csv.lines - 1} rows, ${mb(csv.bytes)} MB in ${(csv.ms / 1000).toFixed(1)} s, peak RSS − start ${mb(csv.peakOverStart)} MB`);
  } finally {
    await baseline.close();
    await service.close();
  }
}

await main();
