// `npm run bench:query`: the query engine's reads against a hand-written Fastify + `pg` handler
// doing the same work and answering the same JSON bytes (baseline.ts), in the same run, load from a
// second process (autocannon, bench/support/load.ts):
//   (a) an end user's grouped count: `GET /toDos/aggregate?groupBy=status` over their own to-dos
//       (the example's rule: `record.user == auth.id`), target ≥ 0.8× the baseline;
//   (b) an end user's full-text search over their to-dos, ranked, narrowed by `fields=`;
//   (c) the administrator's full-text search over every to-do (ranked, exact total), the
//       search target being p50 < 50 ms on 1 M rows.
// The to-do example is published through the real service and seeded by SQL (bench/runtime/setup.ts):
// BENCH_QUERY_ROWS to-dos in all (default 1,000,000) over BENCH_USERS users (default 10,000).
// PostgreSQL only by default (BENCH_DRIVERS); the other settings as every HTTP bench
// (BENCH_SECONDS, BENCH_ROUNDS, BENCH_PREWARM, BENCH_CONNECTIONS: bench/support/measure.ts).
// Prints every figure and the ratios; asserts nothing.
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { sql } from 'kysely';
import type { Driver } from '../../src/storage/db.ts';
import { ident } from '../../src/storage/sql.ts';
import { baselineDatabase, endUserKey } from '../support/baseline.ts';
import { alternate, fmt, forEachDriver, mean, measure, median, settingsLine, type LoadResult, type Measured, type PlannedRequest } from '../support/measure.ts';
import { startService } from '../runtime/setup.ts';
import { SEARCH_FIELDS, startQueryBaseline } from './baseline.ts';

const env = process.env;
env.BENCH_DRIVERS ??= 'postgres';
const ROWS = Number(env.BENCH_QUERY_ROWS ?? 1_000_000);
const USERS = Number(env.BENCH_USERS ?? 10_000);
const SIZE = { users: USERS, todosPerUser: Math.max(1, Math.round(ROWS / USERS)), signups: 20 };

interface Case {
  name: string;
  platform: PlannedRequest[];
  baseline: PlannedRequest[];
}

async function text(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const response = await fetch(url, { headers });
  return { status: response.status, body: await response.text() };
}

async function benchDriver(driver: Driver): Promise<void> {
  const started = Date.now();
  // Seeding a million rows (and their search index) takes longer than a request may.
  const service = await startService(driver, SIZE, { statementTimeoutMs: 0 });
  const database = baselineDatabase(driver, service.t);
  let baseline: { url: string; close(): Promise<void> } | null = null;
  try {
    const db = service.t.platform.db;
    const adminKey = randomBytes(32);
    const adminToken = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setAudience('baseline-admin').setExpirationTime('2h').sign(adminKey);
    baseline = await startQueryBaseline({ app: service.app, query: database.query, endUserKey: await endUserKey(db, service.app.applicationId), adminKey });
    const url = new URL(service.apiUrl);
    const origin = url.origin;
    const prefix = url.pathname;
    const todoTable = ident(service.app.schema, service.app.modelsByResource.get('toDos')!.table);
    const rows = (await sql<{ n: number }>`select count(*) as n from ${todoTable}`.execute(db.kysely)).rows[0].n;
    console.log(`\n${driver}: ${SIZE.users} users × ${SIZE.todosPerUser} to-dos (${rows} rows) seeded in ${((Date.now() - started) / 1000).toFixed(1)} s;`);
    console.log(settingsLine);
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const grouped = '/toDos/aggregate?groupBy=status';
    // Seeded titles are `To-do {n}`, n from 1 to the to-dos per user: each number is one to-do of every user.
    const terms = ['7', '42', '"to-do 3"', '19 -done'].map(encodeURIComponent);
    const search = (i: number) => `/toDos?search=${terms[i % terms.length]}&fields=${SEARCH_FIELDS}`;
    const cases: Case[] = [
      {
        name: '(a) end user counts their to-dos grouped by status',
        platform: service.users.map((u) => ({ path: `${prefix}${grouped}`, headers: bearer(u.token) })),
        baseline: service.users.map((u) => ({ path: grouped, headers: bearer(u.token) })),
      },
      {
        name: '(b) end user searches their to-dos (ranked, 20, total)',
        platform: service.users.map((u, i) => ({ path: `${prefix}${search(i)}`, headers: bearer(u.token) })),
        baseline: service.users.map((u, i) => ({ path: search(i), headers: bearer(u.token) })),
      },
      {
        name: `(c) administrator searches all ${rows} to-dos (ranked, 20, exact total)`,
        platform: terms.map((_, i) => ({ path: `${prefix}${search(i)}`, headers: service.adminHeaders })),
        baseline: terms.map((_, i) => ({ path: search(i), headers: bearer(adminToken) })),
      },
    ];
    for (const c of cases) {
      let same = true;
      for (let i = 0; i < Math.min(4, c.platform.length); i++) {
        const mine = await text(`${origin}${c.platform[i].path}`, c.platform[i].headers);
        const theirs = await text(`${baseline.url}${c.baseline[i].path}`, c.baseline[i].headers);
        if (mine.status !== 200 || theirs.status !== 200 || mine.body !== theirs.body) {
          same = false;
          console.log(`    differs on ${c.platform[i].path}: ${mine.status} ${mine.body.slice(0, 300)}\n      baseline ${theirs.status} ${theirs.body.slice(0, 300)}`);
        }
      }
      const baselineUrl = baseline.url;
      const { first: platformRounds, second: handRounds } = await alternate(
        (seconds) => measure(origin, c.platform, seconds),
        (seconds) => measure(baselineUrl, c.baseline, seconds),
      );
      const platform = mean(platformRounds);
      const hand = mean(handRounds);
      console.log(`  ${c.name}${same ? '  [same JSON bytes as the baseline]' : '  [ANSWERS DIFFER]'}`);
      const line = (label: string, r: Measured, rounds: LoadResult[]) =>
        `    ${label.padEnd(12)} ${fmt(r.requestsPerSecond)} req/s   p50 ${fmt(r.p50, 4)} ms   p99 ${fmt(r.p99, 4)} ms   ` +
        `server CPU ${r.cpuMsPerRequest.toFixed(2)} ms/req   ` +
        `(rounds: ${rounds.map((x) => `${x.requestsPerSecond.toFixed(0)} req/s p50 ${x.p50} ms`).join(', ')}; ${r.total} requests, ${r.non2xx} non-2xx, ${r.errors} errors)`;
      console.log(line('generated', platform, platformRounds));
      console.log(line('hand-written', hand, handRounds));
      const perRound = platformRounds.map((r, i) => r.requestsPerSecond / handRounds[i].requestsPerSecond);
      console.log(
        `    ratio        ${(platform.requestsPerSecond / hand.requestsPerSecond).toFixed(2)}× req/s (median of rounds ${median(perRound).toFixed(2)}×: ` +
          `${perRound.map((r) => r.toFixed(2)).join(', ')})`,
      );
    }
  } finally {
    await baseline?.close();
    await database.close();
    await service.close();
  }
}

await forEachDriver(benchDriver);
