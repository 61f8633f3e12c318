// `npm run bench:actions` (issue 5): an HTTP trigger running five effects (two writes) against a
// hand-written Fastify handler doing the same work, over HTTP, with the load from a second
// process (autocannon, bench/support/load.ts). The action and its trigger are in setup.ts, the
// baseline in baseline.ts. Runs on PostgreSQL (DATABASE_URL or 127.0.0.1:5432; a fresh database,
// dropped afterwards) and on PGlite (in memory; the baseline on the same PGlite instance). Prints
// requests/s, p50 and p99 of both, the CPU time per request (this process, and the whole machine), and
// the ratio (of the mean rates, and per round with its median); asserts nothing. The two are measured in
// BENCH_ROUNDS rounds, alternating (A B, B A, …) so that a drift of the machine's load hits both
// alike; the figures are the means over rounds.
//
// Environment: BENCH_SECONDS (per measurement, default 4), BENCH_WARMUP (default 1),
// BENCH_ROUNDS (default 4), BENCH_PREWARM (default 12), BENCH_CONNECTIONS (default 10, both sides), BENCH_DRIVERS (default "postgres,pglite"),
// BENCH_USERS (default 20), BENCH_TODOS (per user, default 50), BENCH_SIDES (default
// "platform,baseline"; one side alone is handy under --cpu-prof).
import type { Driver } from '../../src/storage/db.ts';
import { baselineDatabase, endUserKey } from '../support/baseline.ts';
import { alternate, fmt, forEachDriver, mean, measure, median, settingsLine, type Measured, type PlannedRequest } from '../support/measure.ts';
import { startBaseline } from './baseline.ts';
import { startService, type BenchService } from './setup.ts';

const env = process.env;
const SIZE = { users: Number(env.BENCH_USERS ?? 20), todosPerUser: Number(env.BENCH_TODOS ?? 50) };
const SIDES = new Set((env.BENCH_SIDES ?? 'platform,baseline').split(',').map((s) => s.trim()));

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

const line = (label: string, r: Measured) =>
  `    ${label.padEnd(13)} ${fmt(r.requestsPerSecond)} req/s   p50 ${fmt(r.p50, 4)} ms   p99 ${fmt(r.p99, 4)} ms   CPU/request: server ${r.cpuMsPerRequest.toFixed(2)} ms, machine ${r.machineMsPerRequest.toFixed(2)} ms   (${r.total} requests, ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts)`;

async function benchDriver(driver: Driver): Promise<void> {
  const started = Date.now();
  const service = await startService(driver, SIZE);
  const database = baselineDatabase(driver, service.t);
  let baseline: { url: string; close(): Promise<void> } | null = null;
  try {
    baseline = await startBaseline(service.app, await endUserKey(service.t.platform.db, service.app.applicationId), database.inTransaction);
    const baselineUrl = baseline.url;
    const url = new URL(service.apiUrl);
    const platformRequests = followUps(service, url.pathname);
    const baselineRequests = followUps(service, '');
    console.log(`\n${driver}: ${SIZE.users} users × ${SIZE.todosPerUser} open to-dos, ready in ${((Date.now() - started) / 1000).toFixed(1)} s;`);
    console.log(settingsLine);
    console.log('  POST …/toDos/:id/followUps: data.get, flow.if, data.create, data.update, flow.return (two writes, one transaction)');
    // Both answer the same JSON (checked, not asserted: a difference is printed), asked of the
    // last to-do of the plans so the measurements start on rows nobody touched yet.
    const mine = await answerShape(url.origin, platformRequests[platformRequests.length - 1]);
    const theirs = await answerShape(baselineUrl, baselineRequests[baselineRequests.length - 1]);
    if (mine !== theirs) console.log(`  [ANSWERS DIFFER]\n    platform: ${mine}\n    baseline: ${theirs}`);
    const rounds = await alternate(
      SIDES.has('platform') ? (seconds) => measure(url.origin, platformRequests, seconds) : null,
      SIDES.has('baseline') ? (seconds) => measure(baselineUrl, baselineRequests, seconds) : null,
    );
    const platform = rounds.first.length > 0 ? mean(rounds.first) : null;
    const hand = rounds.second.length > 0 ? mean(rounds.second) : null;
    if (platform) console.log(line('trigger', platform));
    if (hand) console.log(line('hand-written', hand));
    if (platform && hand) {
      const ratio = platform.requestsPerSecond / hand.requestsPerSecond;
      // Each round measures both sides back to back: its ratio is the least disturbed by the machine's drift.
      const perRound = rounds.first.map((r, i) => r.requestsPerSecond / rounds.second[i].requestsPerSecond);
      console.log(`    ratio         ${ratio.toFixed(2)}× req/s (target ≥ 0.5), p99 ${(platform.p99 / Math.max(hand.p99, 1)).toFixed(2)}×`);
      console.log(`    per round     ${perRound.map((r) => r.toFixed(2)).join(', ')}; median ${median(perRound).toFixed(2)}×`);
    }
  } finally {
    await baseline?.close();
    await database.close();
    await service.close();
  }
}

await forEachDriver(benchDriver);
