// `npm run bench:runtime` (issue 4 item 8): the generated API against a hand-written Fastify + `pg`
// handler, over HTTP, with the load from a second process (autocannon, bench/support/load.ts).
// Seeds 1,000 users × 100 to-dos of the to-do example published through the real service, then
// measures requests/s and p99 of
//   (a) an end user listing 20 of their to-dos, user embedded, under the example's access rule,
//   (b) the administrator listing 20 of all to-dos with the exact total (baseline: count(*) each time),
//   (c) an end user reading one of their to-dos by id,
//   (e) the end user's list of (a) narrowed by `fields=title,deadline,user.name` (DESIGN §6, sparse fields),
// each against a baseline that answers the same JSON from one SQL statement (baseline.ts); and the
// size of the default list of (a) (20 to-dos with embedded users, whose `todos` are bounded),
// on PostgreSQL (DATABASE_URL or 127.0.0.1:5432; a fresh database, dropped afterwards) and on
// PGlite (in memory; the baseline runs its SQL on the same PGlite instance through the
// platform's handle). Prints every figure and the ratios; asserts nothing.
// Then (d) the request log's cost (issue 26): the point reads of (c) with the log on and off, in
// alternating rounds on the same service, and the ratio (bench/runtime/request-log.ts).
//
// Each case is measured in BENCH_ROUNDS rounds, generated and hand-written alternating (A B, B A,
// …) so that a drift of the machine's load hits both alike; the figures are the means over rounds,
// and the ratio is also given as the median of the rounds' own ratios (robust to one noisy round).
//
// Environment: BENCH_SECONDS (per measurement, default 4), BENCH_WARMUP (default 1),
// BENCH_ROUNDS (default 4), BENCH_PREWARM (default 12), BENCH_CONNECTIONS (default 10), BENCH_DRIVERS (default
// "postgres,pglite"), BENCH_USERS (1000), BENCH_TODOS (per user, 100),
// BENCH_CASES (letters of the cases to run, e.g. `abce`, or `d` for the request log alone; default all).
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { sql } from 'kysely';
import type { Driver } from '../../src/storage/db.ts';
import { ident } from '../../src/storage/sql.ts';
import { baselineDatabase, endUserKey } from '../support/baseline.ts';
import { alternate, fmt, forEachDriver, mean, measure, median, settingsLine, type LoadResult, type Measured, type PlannedRequest } from '../support/measure.ts';
import { NARROW_FIELDS, startBaseline } from './baseline.ts';
import { startService, type BenchService } from './setup.ts';
import { compareRequestLog } from './request-log.ts';

const env = process.env;
/** BENCH_CASES: the letters of the cases to run (all when unset). */
const chosen = (letter: string) => env.BENCH_CASES === undefined || env.BENCH_CASES.includes(letter);
const SIZE = { users: Number(env.BENCH_USERS ?? 1000), todosPerUser: Number(env.BENCH_TODOS ?? 100), signups: 20 };

async function fetchJson(url: string, headers: Record<string, string>): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { headers });
  return { status: response.status, body: await response.json() };
}

interface Case {
  name: string;
  platform: PlannedRequest[];
  baseline: PlannedRequest[];
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
    {
      name: `(e) end user lists 20 of their to-dos narrowed by fields=${NARROW_FIELDS}`,
      platform: service.users.map((u) => ({ path: `${prefix}${list}&fields=${NARROW_FIELDS}`, headers: bearer(u.token) })),
      baseline: service.users.map((u) => ({ path: `${list}&fields=${NARROW_FIELDS}`, headers: bearer(u.token) })),
    },
  ];
}

async function benchDriver(driver: Driver): Promise<void> {
  const started = Date.now();
  const service = await startService(driver, SIZE);
  const database = baselineDatabase(driver, service.t);
  let baseline: { url: string; close(): Promise<void> } | null = null;
  try {
    const db = service.t.platform.db;
    const adminKey = randomBytes(32);
    const adminToken = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setAudience('baseline-admin').setExpirationTime('2h').sign(adminKey);
    const embeddedIdLimit = service.t.config.embeddedIdLimit;
    baseline = await startBaseline({ app: service.app, query: database.query, endUserKey: await endUserKey(service.t.platform.db, service.app.applicationId), adminKey, embeddedIdLimit });
    const url = new URL(service.apiUrl);
    const origin = url.origin;
    const todoTable = ident(service.app.schema, service.app.modelsByResource.get('toDos')!.table);
    const todos = (await sql<{ n: number }>`select count(*) as n from ${todoTable}`.execute(db.kysely)).rows[0].n;
    console.log(`\n${driver}: ${SIZE.users} users × ${SIZE.todosPerUser} to-dos (${todos} rows) seeded in ${((Date.now() - started) / 1000).toFixed(1)} s;`);
    console.log(settingsLine);
    for (const c of cases(service, adminToken, url.pathname).filter((c) => chosen(c.name[1]))) {
      // Both answer the same JSON (checked, not asserted: a difference is printed).
      const mine = await fetchJson(`${origin}${c.platform[0].path}`, c.platform[0].headers);
      const theirs = await fetchJson(`${baseline.url}${c.baseline[0].path}`, c.baseline[0].headers);
      const same = mine.status === 200 && theirs.status === 200 && JSON.stringify(mine.body) === JSON.stringify(theirs.body);
      const bytes = Buffer.byteLength(JSON.stringify(mine.body));
      const baselineUrl = baseline.url;
      const { first: platformRounds, second: handRounds } = await alternate(
        (seconds) => measure(origin, c.platform, seconds),
        (seconds) => measure(baselineUrl, c.baseline, seconds),
      );
      const platform = mean(platformRounds);
      const hand = mean(handRounds);
      console.log(`  ${c.name}${same ? '  [same JSON as the baseline]' : '  [ANSWERS DIFFER: platform ' + mine.status + ', baseline ' + theirs.status + ']'}`);
      console.log(`    answer       ${(bytes / 1024).toFixed(1)} KB (embedded id limit ${embeddedIdLimit})`);
      const line = (label: string, r: Measured, rounds: LoadResult[]) =>
        `    ${label.padEnd(12)} ${fmt(r.requestsPerSecond)} req/s   p50 ${fmt(r.p50, 4)} ms   p99 ${fmt(r.p99, 4)} ms   ` +
        `server CPU ${r.cpuMsPerRequest.toFixed(2)} ms/req   ` +
        `(rounds: ${rounds.map((x) => `${x.requestsPerSecond.toFixed(0)} req/s p99 ${x.p99} ms`).join(', ')}; ${r.total} requests, ${r.non2xx} non-2xx, ${r.errors} errors)`;
      console.log(line('generated', platform, platformRounds));
      console.log(line('hand-written', hand, handRounds));
      const perRound = platformRounds.map((r, i) => r.requestsPerSecond / handRounds[i].requestsPerSecond);
      console.log(
        `    ratio        ${(platform.requestsPerSecond / hand.requestsPerSecond).toFixed(2)}× req/s (median of rounds ${median(perRound).toFixed(2)}×: ` +
          `${perRound.map((r) => r.toFixed(2)).join(', ')}), p99 ${(platform.p99 / Math.max(hand.p99, 1)).toFixed(2)}×`,
      );
    }
    // The request log's cost on the fastest case (a point read), where a fixed cost per request shows most.
    const point = cases(service, adminToken, url.pathname)[2];
    if (!chosen('d')) return;
    await compareRequestLog(db, origin, point.name, point.platform);
  } finally {
    await baseline?.close();
    await database.close();
    await service.close();
  }
}

await forEachDriver(benchDriver);
