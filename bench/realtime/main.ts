// `npm run bench:realtime` (issue 24, DESIGN §17): SSE subscribers on one server process while
// changes are made, at each size of BENCH_SUBSCRIBERS (default 1,000 then 10,000, to show the cost
// curve). The server is `npm start` in a process of its own (the compiled build, over PostgreSQL:
// setup.ts); the subscribers are a second process (subscribers.ts: one SSE stream per end user,
// each subscribed to `toDos`, of which the read rule lets them see only their own); the writes come
// from a third (writer.ts: BENCH_RATE changes a second, open loop, each to the to-do of a subscriber
// taken in a shuffled round, so each change is delivered to exactly one subscriber after being
// judged for all). Printed per size:
//   - commit → delivery p50/p99/max: from the write's answer (which follows its commit) to the
//     event's arrival in the subscribers' process, and from the request sent (an upper bound);
//   - SQL statements per change run by realtime (visibility statements and outbox reads, from the
//     service's /metrics): they must not grow with subscribers;
//   - the serving process's RSS (/proc) before connecting, once connected, and at its peak during
//     the changes (VmHWM, reset before them), its heap in use (/metrics), the heap each subscriber
//     takes, its CPU per change (the write's handling included) and its event-loop delay p99;
//   - changes delivered out of those made (every one should arrive once).
// Asserts nothing. The machine may be shared: the figures are of this run only.
//
// Environment: BENCH_SUBSCRIBERS (default "1000,10000"), BENCH_RATE (changes/s, default 100),
// BENCH_SECONDS (measured, default 20), BENCH_WARMUP (seconds of changes before, default 5),
// BENCH_CONNECT_CONCURRENCY (streams opened at once, default 200). PostgreSQL only: the bench seeds
// the service's database from this process, which the embedded store (one process) does not allow.
import { postgresAvailable } from '../../test/support/databases.ts';
import { ChildLines, percentile } from './child.ts';
import { startRealtimeService, type RealtimeService } from './setup.ts';
import type { Ready, Report, SubscriberPlan } from './subscribers.ts';
import type { Written, WriterPlan } from './writer.ts';

const env = process.env;
const SIZES = (env.BENCH_SUBSCRIBERS ?? '1000,10000').split(',').map(Number);
const RATE = Number(env.BENCH_RATE ?? 100);
const SECONDS = Number(env.BENCH_SECONDS ?? 20);
const WARMUP = Number(env.BENCH_WARMUP ?? 5);
const CONCURRENCY = Number(env.BENCH_CONNECT_CONCURRENCY ?? 200);

const SUBSCRIBERS = new URL('./subscribers.ts', import.meta.url);
const WRITER = new URL('./writer.ts', import.meta.url);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Row {
  subscribers: number;
  connectS: number;
  fromAnswer: { p50: number; p99: number; max: number };
  fromSent: { p50: number; p99: number };
  visibilityPerChange: number;
  feedPerChange: number;
  rssBeforeMb: number;
  /** The streams open (2 s after), before the changes. */
  rssConnectedMb: number;
  heapBeforeMb: number;
  heapConnectedMb: number;
  rssPeakMb: number;
  cpuMsPerChange: number;
  loopP99Ms: number;
  delivered: number;
  made: number;
  failedWrites: number;
  loadRssMb: number;
}

async function write(service: RealtimeService, users: number, seconds: number, prefix: string): Promise<Written> {
  const writer = new ChildLines(WRITER);
  const plan: WriterPlan = { apiUrl: service.apiUrl, targets: service.users.slice(0, users).map(({ token, todoId }) => ({ token, todoId })), rate: RATE, seconds, prefix };
  writer.send(JSON.stringify(plan), true);
  const written = JSON.parse(await writer.next()) as Written;
  await writer.exited();
  return written;
}

async function runSize(service: RealtimeService, n: number): Promise<Row> {
  const idle = { rssMb: service.memory().rssMb, heapMb: (await service.metrics()).heapUsedMb };
  const load = new ChildLines(SUBSCRIBERS);
  const plan: SubscriberPlan = { apiUrl: service.apiUrl, tokens: service.users.slice(0, n).map((u) => u.token), concurrency: CONCURRENCY };
  load.send(JSON.stringify(plan));
  const ready = JSON.parse(await load.next()) as Ready;
  if (ready.failed > 0) console.log(`  ${ready.failed} of ${n} streams refused: ${ready.firstFailure}`);
  await sleep(2000);
  const open = await service.metrics();
  const connected = { rssMb: service.memory().rssMb, heapMb: open.heapUsedMb };
  console.log(`  ${n} subscribers: ${ready.opened} streams open in ${(ready.connectMs / 1000).toFixed(1)} s (service: ${open.connections}); RSS ${idle.rssMb.toFixed(0)} → ${connected.rssMb.toFixed(0)} MB, heap ${idle.heapMb.toFixed(0)} → ${connected.heapMb.toFixed(0)} MB`);

  if (WARMUP > 0) await write(service, n, WARMUP, 'w');
  await sleep(1000);
  service.resetPeak();
  // Reading /metrics also restarts its event-loop delay histogram: the p99 below is of the changes alone.
  const before = await service.metrics();
  const written = await write(service, n, SECONDS, 'm');
  // The last changes' deliveries: wait until the service has judged them all (or 5 s).
  const made = written.filter((w) => w.status === 200).length;
  let after = await service.metrics();
  for (let waited = 0; after.visibilityStatements - before.visibilityStatements < made && waited < 5000; waited += 100) {
    await sleep(100);
    after = await service.metrics();
  }
  await sleep(300);
  const { peakMb } = service.memory();
  after = await service.metrics();
  const visibility = after.visibilityStatements - before.visibilityStatements;
  const feed = after.outboxStatements - before.outboxStatements;

  load.send('report');
  const report = JSON.parse(await load.next()) as Report;
  await load.exited();
  for (let i = 0; (await service.metrics()).connections > 0 && i < 100; i++) await sleep(100);

  const arrived = new Map(report.arrivals.filter(([marker]) => marker.startsWith('m')));
  const fromAnswer: number[] = [];
  const fromSent: number[] = [];
  for (const w of written) {
    const at = arrived.get(w.marker);
    if (at === undefined || w.status !== 200) continue;
    fromAnswer.push(at - w.answeredAt);
    fromSent.push(at - w.sentAt);
  }
  return {
    subscribers: n,
    connectS: ready.connectMs / 1000,
    fromAnswer: { p50: percentile(fromAnswer, 50), p99: percentile(fromAnswer, 99), max: percentile(fromAnswer, 100) },
    fromSent: { p50: percentile(fromSent, 50), p99: percentile(fromSent, 99) },
    visibilityPerChange: visibility / Math.max(made, 1),
    feedPerChange: feed / Math.max(made, 1),
    rssBeforeMb: idle.rssMb,
    rssConnectedMb: connected.rssMb,
    heapBeforeMb: idle.heapMb,
    heapConnectedMb: connected.heapMb,
    rssPeakMb: peakMb,
    cpuMsPerChange: ((after.cpuSeconds - before.cpuSeconds) * 1000) / Math.max(made, 1),
    loopP99Ms: after.loopP99Ms,
    delivered: fromAnswer.length,
    made,
    failedWrites: written.length - made,
    loadRssMb: report.rssMb,
  };
}

function print(rows: Row[]): void {
  const f = (n: number, d = 0) => n.toFixed(d);
  console.log(
    '\n  subscribers | commit→delivery p50 / p99 / max ms | (from request sent p50 / p99) | SQL per change: visibility + outbox | server RSS none → connected → peak MB | heap none → connected MB | server CPU ms/change | loop p99 ms | delivered',
  );
  for (const r of rows) {
    console.log(
      `  ${String(r.subscribers).padStart(11)} | ${f(r.fromAnswer.p50, 1).padStart(6)} / ${f(r.fromAnswer.p99, 1).padStart(6)} / ${f(r.fromAnswer.max).padStart(5)} | (${f(r.fromSent.p50, 1)} / ${f(r.fromSent.p99, 1)}) | ` +
        `${f(r.visibilityPerChange, 2)} + ${f(r.feedPerChange, 2)} | ${f(r.rssBeforeMb)} → ${f(r.rssConnectedMb)} → ${f(r.rssPeakMb)} | ${f(r.heapBeforeMb)} → ${f(r.heapConnectedMb)} | ` +
        `${f(r.cpuMsPerChange, 2)} | ${f(r.loopP99Ms, 1)} | ${r.delivered}/${r.made}${r.failedWrites > 0 ? ` (${r.failedWrites} writes failed)` : ''}`,
    );
  }
  for (const r of rows) console.log(`  ${r.subscribers} subscribers: ${(((r.heapConnectedMb - r.heapBeforeMb) * 1024) / r.subscribers).toFixed(1)} KB of heap each (the open stream: Node's socket, parser and request head, the hub's entry)`);
  console.log(`  load process RSS: ${rows.map((r) => `${f(r.loadRssMb)} MB at ${r.subscribers}`).join(', ')}; streams opened in ${rows.map((r) => `${f(r.connectS, 1)} s`).join(', ')}`);
  if (rows.length > 1) {
    const [first, last] = [rows[0], rows.at(-1)!];
    console.log(
      `  ${first.subscribers} → ${last.subscribers} subscribers (${(last.subscribers / first.subscribers).toFixed(0)}×): statements per change ${f(first.visibilityPerChange + first.feedPerChange, 2)} → ${f(last.visibilityPerChange + last.feedPerChange, 2)}, ` +
        `CPU per change ${(last.cpuMsPerChange / first.cpuMsPerChange).toFixed(1)}×, p99 ${f(first.fromAnswer.p99, 1)} → ${f(last.fromAnswer.p99, 1)} ms, heap added by subscribers ${f(first.heapConnectedMb - first.heapBeforeMb)} → ${f(last.heapConnectedMb - last.heapBeforeMb)} MB`,
    );
  }
  const big = rows.find((r) => r.subscribers >= 10_000);
  if (big) {
    console.log(
      `  target (DESIGN §17, 10,000 subscribers, 100 changes/s): p99 commit→delivery < 100 ms: ${big.fromAnswer.p99 < 100 ? 'met' : 'NOT met'} (${f(big.fromAnswer.p99, 1)} ms); ` +
        `RSS < 300 MB: ${big.rssPeakMb < 300 ? 'met' : 'NOT met'} (${f(big.rssPeakMb)} MB at the peak, ${f(big.rssConnectedMb)} MB connected, ${f(big.rssBeforeMb)} MB of it before any subscriber)`,
    );
  }
}

async function main(): Promise<void> {
  if (!(await postgresAvailable())) {
    console.log('bench:realtime: no PostgreSQL answers at DATABASE_URL or 127.0.0.1:5432; nothing measured');
    return;
  }
  const started = Date.now();
  const service = await startRealtimeService(Math.max(...SIZES), { LOG_LEVEL: 'warn' });
  try {
    console.log(`\npostgres: npm start (pid ${service.pid}), ${service.users.length} end users with a to-do each, seeded in ${((Date.now() - started) / 1000).toFixed(1)} s; service RSS ${service.memory().rssMb.toFixed(0)} MB`);
    console.log(`  ${RATE} changes/s for ${SECONDS} s measured (after ${WARMUP} s of warm-up changes), each subscriber on \`toDos\` under the rule record.user == auth.id; subscribers in a second process, writes from a third`);
    const rows: Row[] = [];
    for (const n of SIZES) rows.push(await runSize(service, n));
    print(rows);
  } finally {
    await service.close();
  }
}

await main();
