// `npm run bench:runtime` (issue 4 item 8): the generated API against a hand-written Fastify + `pg`
// handler, over HTTP, with the load from a second process (autocannon, bench/runtime/load.ts).
// Seeds 1,000 users × 100 to-dos of the to-do example published through the real service, then
// measures requests/s and p99 of
//   (a) an end user listing 20 of their to-dos, user embedded, under the example's access rule,
//   (b) the administrator listing 20 of all to-dos with the exact total (baseline: count(*) each time),
//   (c) an end user reading one of their to-dos by id,
// on PostgreSQL (DATABASE_URL or 127.0.0.1:5432; a fresh database, dropped afterwards) and on
// PGlite (in memory; the baseline runs its SQL on the same PGlite instance through the
// platform's handle). Prints every figure and the ratios; asserts nothing.
//
// Each case is measured in BENCH_ROUNDS rounds, generated and hand-written alternating (A B, B A,
// …) so that a drift of the machine's load hits both alike; the figures are the means over rounds.
//
// Environment: BENCH_SECONDS (per measurement, default 5), BENCH_WARMUP (default 1),
// BENCH_ROUNDS (default 2), BENCH_CONNECTIONS (default 10), BENCH_DRIVERS (default
// "postgres,pglite"), BENCH_USERS (1000), BENCH_TODOS (per user, 100).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { sql } from 'kysely';
import pg from 'pg';
import { AppKeys, loadMasterKey } from '../../src/runtime/app-keys.ts';
import type { Driver } from '../../src/storage/db.ts';
import { ident } from '../../src/storage/sql.ts';
import { postgresAvailable } from '../../test/support/databases.ts';
import { startBaseline, type Query } from './baseline.ts';
import type { LoadPlan, LoadResult } from './load.ts';
import { startService, type BenchService } from './setup.ts';

const env = process.env;
const SECONDS = Number(env.BENCH_SECONDS ?? 5);
const WARMUP = Number(env.BENCH_WARMUP ?? 1);
const ROUNDS = Math.max(1, Number(env.BENCH_ROUNDS ?? 2));
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 10);
const SIZE = { users: Number(env.BENCH_USERS ?? 1000), todosPerUser: Number(env.BENCH_TODOS ?? 100), signups: 20 };
const LOAD_SCRIPT = fileURLToPath(new URL('./load.ts', import.meta.url));

type Request = LoadPlan['requests'][number];

/** Runs one measurement in a second process. */
function measure(url: string, requests: Request[]): Promise<LoadResult> {
  const plan: LoadPlan = { url, requests, connections: CONNECTIONS, seconds: SECONDS, warmupSeconds: WARMUP };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', LOAD_SCRIPT, JSON.stringify(plan)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`the load process exited with ${code}`));
      resolve(JSON.parse(out.trim().split('\n').pop()!) as LoadResult);
    });
  });
}

async function fetchJson(url: string, headers: Record<string, string>): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { headers });
  return { status: response.status, body: await response.json() };
}

interface Case {
  name: string;
  platform: Request[];
  baseline: Request[];
}

function cases(service: BenchService, adminToken: string, prefix: string): Case[] {
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const list = '/toDos?limit=20';
  const reads = service.users.flatMap((u) => u.todoIds.slice(0, 10).map((id) => ({ id, token: u.token })));
  return [
    {
      name: '(a) end user lists 20 of their to-dos, user embedded, under the rule',
      platform: service.users.map((u) => ({ path: `${prefix}${list}`, headers: bearer(u.token) })),
      baseline: service.users.map((u) => ({ path: list, headers: bearer(u.token) })),
    },
    {
      name: '(b) administrator lists 20 of all to-dos with the exact total',
      platform: [{ path: `${prefix}${list}`, headers: service.adminHeaders }],
      baseline: [{ path: list, headers: bearer(adminToken) }],
    },
    {
      name: '(c) end user reads one of their to-dos by id',
      platform: reads.map((r) => ({ path: `${prefix}/toDos/${r.id}`, headers: bearer(r.token) })),
      baseline: reads.map((r) => ({ path: `/toDos/${r.id}`, headers: bearer(r.token) })),
    },
  ];
}

const fmt = (n: number, width = 8) => n.toFixed(0).padStart(width);

/** Rates, p50 and p99 averaged over rounds; counts added up. */
function mean(rounds: LoadResult[]): LoadResult {
  const avg = (pick: (r: LoadResult) => number) => rounds.reduce((sum, r) => sum + pick(r), 0) / rounds.length;
  const sum = (pick: (r: LoadResult) => number) => rounds.reduce((total, r) => total + pick(r), 0);
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

async function benchDriver(driver: Driver): Promise<void> {
  const started = Date.now();
  const service = await startService(driver, SIZE);
  let pool: pg.Pool | null = null;
  let baseline: { url: string; close(): Promise<void> } | null = null;
  try {
    const db = service.t.platform.db;
    let query: Query;
    if (driver === 'postgres') {
      const activePool = new pg.Pool({ connectionString: service.t.database.url!, max: 10 });
      pool = activePool;
      query = async (text, values) => (await activePool.query(text, values)).rows;
    } else {
      const pglite = db.pglite!;
      query = async (text, values) => (await pglite.query<Record<string, unknown>>(text, values)).rows;
    }
    const endUserKey = await new AppKeys(db, await loadMasterKey(db)).signingKey(service.app.applicationId);
    const adminKey = randomBytes(32);
    const adminToken = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setAudience('baseline-admin').setExpirationTime('2h').sign(adminKey);
    baseline = await startBaseline({ app: service.app, query, endUserKey, adminKey });
    const url = new URL(service.apiUrl);
    const origin = url.origin;
    const todoTable = ident(service.app.schema, service.app.modelsByResource.get('toDos')!.table);
    const todos = (await sql<{ n: number }>`select count(*) as n from ${todoTable}`.execute(db.kysely)).rows[0].n;
    console.log(`\n${driver}: ${SIZE.users} users × ${SIZE.todosPerUser} to-dos (${todos} rows) seeded in ${((Date.now() - started) / 1000).toFixed(1)} s;`);
    console.log(`  ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${SECONDS} s per measurement, ${ROUNDS} rounds, load from a second process (autocannon)`);
    for (const c of cases(service, adminToken, url.pathname)) {
      // Both answer the same JSON (checked, not asserted: a difference is printed).
      const mine = await fetchJson(`${origin}${c.platform[0].path}`, c.platform[0].headers);
      const theirs = await fetchJson(`${baseline.url}${c.baseline[0].path}`, c.baseline[0].headers);
      const same = mine.status === 200 && theirs.status === 200 && JSON.stringify(mine.body) === JSON.stringify(theirs.body);
      const platformRounds: LoadResult[] = [];
      const handRounds: LoadResult[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        if (round % 2 === 0) {
          platformRounds.push(await measure(origin, c.platform));
          handRounds.push(await measure(baseline.url, c.baseline));
        } else {
          handRounds.push(await measure(baseline.url, c.baseline));
          platformRounds.push(await measure(origin, c.platform));
        }
      }
      const platform = mean(platformRounds);
      const hand = mean(handRounds);
      console.log(`  ${c.name}${same ? '' : '  [ANSWERS DIFFER: platform ' + mine.status + ', baseline ' + theirs.status + ']'}`);
      const line = (label: string, r: LoadResult, rounds: LoadResult[]) =>
        `    ${label.padEnd(12)} ${fmt(r.requestsPerSecond)} req/s   p50 ${fmt(r.p50, 4)} ms   p99 ${fmt(r.p99, 4)} ms   ` +
        `(rounds: ${rounds.map((x) => `${x.requestsPerSecond.toFixed(0)} req/s p99 ${x.p99} ms`).join(', ')}; ${r.total} requests, ${r.non2xx} non-2xx, ${r.errors} errors)`;
      console.log(line('generated', platform, platformRounds));
      console.log(line('hand-written', hand, handRounds));
      console.log(`    ratio        ${(platform.requestsPerSecond / hand.requestsPerSecond).toFixed(2)}× req/s, p99 ${(platform.p99 / Math.max(hand.p99, 1)).toFixed(2)}×`);
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
