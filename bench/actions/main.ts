// `npm run bench:actions` (issue 5): an HTTP trigger running five effects (two writes) against a
// hand-written Fastify handler doing the same work, over HTTP, with the load from a second
// process (autocannon, bench/actions/load.ts). The action and its trigger are in setup.ts, the
// baseline in baseline.ts. Runs on PostgreSQL (DATABASE_URL or 127.0.0.1:5432; a fresh database,
// dropped afterwards) and on PGlite (in memory; the baseline on the same PGlite instance). Prints
// requests/s, p50 and p99 of both and the ratio; asserts nothing. The two are measured in
// BENCH_ROUNDS rounds, alternating (A B, B A, …) so that a drift of the machine's load hits both
// alike; the figures are the means over rounds.
//
// Environment: BENCH_SECONDS (per measurement, default 5), BENCH_WARMUP (default 1),
// BENCH_ROUNDS (default 2), BENCH_CONNECTIONS (default 10, both sides), BENCH_DRIVERS (default "postgres,pglite"),
// BENCH_USERS (default 20), BENCH_TODOS (per user, default 50), BENCH_SIDES (default
// "platform,baseline"; one side alone is handy under --cpu-prof).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { AppKeys, loadMasterKey } from '../../src/runtime/app-keys.ts';
import type { Driver } from '../../src/storage/db.ts';
import { postgresAvailable } from '../../test/support/databases.ts';
import { pgliteTransactions, pgTransactions, startBaseline } from './baseline.ts';
import type { LoadPlan, LoadResult, PlannedRequest } from './load.ts';
import { startService, type BenchService } from './setup.ts';

const env = process.env;
const SECONDS = Number(env.BENCH_SECONDS ?? 5);
const WARMUP = Number(env.BENCH_WARMUP ?? 1);
const ROUNDS = Math.max(1, Number(env.BENCH_ROUNDS ?? 2));
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 10);
const SIZE = { users: Number(env.BENCH_USERS ?? 20), todosPerUser: Number(env.BENCH_TODOS ?? 50) };
const SIDES = new Set((env.BENCH_SIDES ?? 'platform,baseline').split(',').map((s) => s.trim()));
const LOAD_SCRIPT = fileURLToPath(new URL('./load.ts', import.meta.url));

/** Runs one measurement in a second process. */
function measure(url: string, requests: PlannedRequest[]): Promise<LoadResult> {
  const plan: LoadPlan = { url, requests, connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', LOAD_SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`the load process exited with ${code}`));
      resolve(JSON.parse(out.trim().split('\n').pop()!) as LoadResult);
    });
    child.stdin.end(JSON.stringify(plan));
  });
}

/** One request per (user, to-do), users interleaved so neighbours touch different rows. */
function followUps(service: BenchService, prefix: string): PlannedRequest[] {
  const requests: PlannedRequest[] = [];
  for (let i = 0; i < SIZE.todosPerUser; i++) {
    for (const user of service.users) {
      requests.push({
        method: 'POST',
        path: `${prefix}/toDos/${user.todoIds[i]}/followUps`,
        headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Follow up on ${i}` }),
      });
    }
  }
  return requests;
}

/** The answer with ids and the description (it names a new id) masked: the shape to compare. */
async function answerShape(origin: string, request: PlannedRequest): Promise<string> {
  const response = await fetch(`${origin}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
  const text = await response.text();
  const masked = text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>');
  return `${response.status} ${masked}`;
}

/** The mean of each figure over rounds. */
function mean(results: LoadResult[]): LoadResult {
  const avg = (pick: (r: LoadResult) => number) => results.reduce((sum, r) => sum + pick(r), 0) / results.length;
  const sum = (pick: (r: LoadResult) => number) => results.reduce((total, r) => total + pick(r), 0);
  return {
    requestsPerSecond: avg((r) => r.requestsPerSecond),
    p50: avg((r) => r.p50),
    p99: avg((r) => r.p99),
    total: sum((r) => r.total),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
  };
}

const fmt = (n: number, width = 8) => n.toFixed(0).padStart(width);
const line = (label: string, r: LoadResult) =>
  `    ${label.padEnd(13)} ${fmt(r.requestsPerSecond)} req/s   p50 ${fmt(r.p50, 4)} ms   p99 ${fmt(r.p99, 4)} ms   (${r.total} requests, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts)`;

async function benchDriver(driver: Driver): Promise<void> {
  const started = Date.now();
  const service = await startService(driver, SIZE);
  let pool: pg.Pool | null = null;
  let baseline: { url: string; close(): Promise<void> } | null = null;
  try {
    const db = service.t.platform.db;
    if (driver === 'postgres') pool = new pg.Pool({ connectionString: service.t.database.url!, max: 10 });
    const inTransaction = pool ? pgTransactions(pool) : pgliteTransactions(db.pglite!);
    const endUserKey = await new AppKeys(db, await loadMasterKey(db)).signingKey(service.app.applicationId);
    baseline = await startBaseline(service.app, endUserKey, inTransaction);
    const url = new URL(service.apiUrl);
    const platformRequests = followUps(service, url.pathname);
    const baselineRequests = followUps(service, '');
    console.log(`\n${driver}: ${SIZE.users} users × ${SIZE.todosPerUser} open to-dos, ready in ${((Date.now() - started) / 1000).toFixed(1)} s;`);
    console.log(`  ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${SECONDS} s per measurement, ${ROUNDS} rounds, load from a second process (autocannon)`);
    console.log('  POST …/toDos/:id/followUps: data.get, flow.if, data.create, data.update, flow.return (two writes, one transaction)');
    // Both answer the same JSON (checked, not asserted: a difference is printed), asked of the
    // last to-do of the plans so the measurements start on rows nobody touched yet.
    const mine = await answerShape(url.origin, platformRequests[platformRequests.length - 1]);
    const theirs = await answerShape(baseline.url, baselineRequests[baselineRequests.length - 1]);
    if (mine !== theirs) console.log(`  [ANSWERS DIFFER]\n    platform: ${mine}\n    baseline: ${theirs}`);
    const platformRounds: LoadResult[] = [];
    const handRounds: LoadResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? ['platform', 'baseline'] : ['baseline', 'platform'];
      for (const side of order) {
        if (!SIDES.has(side)) continue;
        if (side === 'platform') platformRounds.push(await measure(url.origin, platformRequests));
        else handRounds.push(await measure(baseline.url, baselineRequests));
      }
    }
    const platform = platformRounds.length > 0 ? mean(platformRounds) : null;
    const hand = handRounds.length > 0 ? mean(handRounds) : null;
    if (platform) console.log(line('trigger', platform));
    if (hand) console.log(line('hand-written', hand));
    if (platform && hand) {
      const ratio = platform.requestsPerSecond / hand.requestsPerSecond;
      console.log(`    ratio         ${ratio.toFixed(2)}× req/s (target ≥ 0.5), p99 ${(platform.p99 / Math.max(hand.p99, 1)).toFixed(2)}×`);
    }
  } finally {
    await baseline?.close();
    await pool?.end();
    await service.close();
  }
}

const drivers = (env.BENCH_DRIVERS ?? 'postgres,pglite').split(',').map((d) => d.trim()) as Driver[];
for (const driver of drivers) {
  if (driver === 'postgres' && !(await postgresAvailable())) {
    console.log('\npostgres: no server answers at DATABASE_URL or 127.0.0.1:5432; skipped');
    continue;
  }
  await benchDriver(driver);
}
