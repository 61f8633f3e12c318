// What both HTTP benches share around the load generator (load.ts): the settings read from the
// environment, one measurement in a second process, rounds alternating the two sides (A B, B A, …)
// so that a drift of the machine's load hits both alike, the mean over rounds, and the loop over
// database drivers.
//
// Environment: BENCH_SECONDS (per measurement, default 4), BENCH_WARMUP (default 1),
// BENCH_ROUNDS (default 4), BENCH_PREWARM (seconds of load per side before the rounds, default 12),
// BENCH_CONNECTIONS (default 10), BENCH_DRIVERS (default "postgres,pglite").
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Driver } from '../../src/storage/db.ts';
import { postgresAvailable } from '../../test/support/databases.ts';
import type { LoadPlan, LoadResult, PlannedRequest } from './load.ts';

export type { LoadResult, PlannedRequest } from './load.ts';

const env = process.env;
export const SECONDS = Number(env.BENCH_SECONDS ?? 4);
export const WARMUP = Number(env.BENCH_WARMUP ?? 1);
export const ROUNDS = Math.max(1, Number(env.BENCH_ROUNDS ?? 4));
export const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 10);
/**
 * Load each side takes, untimed, before the first round: the JIT of a server with much code
 * (the platform) keeps compiling for some 15 s of load; the rounds compare warm servers.
 */
export const PREWARM = Number(env.BENCH_PREWARM ?? 12);
const LOAD_SCRIPT = fileURLToPath(new URL('./load.ts', import.meta.url));

/** The line every bench prints under its driver's heading. */
export const settingsLine = `  ${CONNECTIONS} connections, ${PREWARM} s of load per side before the rounds, ${WARMUP} s warm-up + ${SECONDS} s per measurement, ${ROUNDS} rounds, load from a second process (autocannon)`;

/** A measurement with the server's CPU time per request (this process's, or options.pid's; warm-up included, so approximate). */
export interface Measured extends LoadResult {
  cpuMsPerRequest: number;
  /** Busy time of the whole machine (every process: the database, the load generator) per request; Linux only, else NaN. */
  machineMsPerRequest: number;
}

/** Busy CPU time of the machine so far in ms (/proc/stat: user, nice, system, irq, softirq; not idle, iowait, steal or guest, which user already counts), NaN where there is none. */
function machineBusyMs(): number {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const ticks = fields.reduce((sum, n, i) => ([0, 1, 2, 5, 6].includes(i) ? sum + n : sum), 0);
    return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return Number.NaN;
  }
}

/** CPU ms so far of process `pid` (/proc/<pid>/stat utime + stime), NaN where there is none. */
export function processCpuMs(pid: number): number {
  try {
    // The command may hold spaces and parentheses: fields are counted after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in USER_HZ (100)
  } catch {
    return Number.NaN;
  }
}

export interface MeasureOptions {
  /** Connections of the load (default BENCH_CONNECTIONS). */
  connections?: number;
  /** The server's process when it is not this one: its CPU is counted instead of this process's. */
  pid?: number;
}

/** Runs one measurement in a second process; the plan goes in on stdin. */
export async function measure(url: string, requests: PlannedRequest[], seconds = SECONDS, options: MeasureOptions = {}): Promise<Measured> {
  const before = process.cpuUsage();
  const serverBefore = options.pid === undefined ? 0 : processCpuMs(options.pid);
  const machineBefore = machineBusyMs();
  const result = await load(url, requests, seconds, options.connections ?? CONNECTIONS);
  const used = process.cpuUsage(before);
  const serverMs = options.pid === undefined ? (used.user + used.system) / 1000 : processCpuMs(options.pid) - serverBefore;
  const machine = machineBusyMs() - machineBefore;
  const requestsServed = Math.max(result.requestsPerSecond * (seconds + WARMUP), 1);
  return { ...result, cpuMsPerRequest: serverMs / requestsServed, machineMsPerRequest: machine / requestsServed };
}

function load(url: string, requests: PlannedRequest[], seconds: number, connections: number): Promise<LoadResult> {
  const plan: LoadPlan = { url, requests, connections, seconds, warmupSeconds: WARMUP };
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

/**
 * PREWARM seconds of load on each side, then ROUNDS rounds of both sides, first then second in
 * even rounds, the other way in odd ones; a side left out (null) is not measured.
 */
export async function alternate(
  first: ((seconds?: number) => Promise<Measured>) | null,
  second: ((seconds?: number) => Promise<Measured>) | null,
): Promise<{ first: Measured[]; second: Measured[] }> {
  if (PREWARM > 0) {
    await first?.(PREWARM);
    await second?.(PREWARM);
  }
  const rounds = { first: [] as Measured[], second: [] as Measured[] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['first', 'second'] as const) : (['second', 'first'] as const);
    for (const side of order) {
      const run = side === 'first' ? first : second;
      if (run) rounds[side].push(await run());
    }
  }
  return rounds;
}

/** Rates, p50, p99 and CPU per request averaged over rounds; counts added up. */
export function mean(rounds: Measured[]): Measured {
  const avg = (pick: (r: Measured) => number) => rounds.reduce((sum, r) => sum + pick(r), 0) / rounds.length;
  const sum = (pick: (r: Measured) => number) => rounds.reduce((total, r) => total + pick(r), 0);
  return {
    cpuMsPerRequest: avg((r) => r.cpuMsPerRequest),
    machineMsPerRequest: avg((r) => r.machineMsPerRequest),
    requestsPerSecond: avg((r) => r.requestsPerSecond),
    p50: avg((r) => r.p50),
    p99: avg((r) => r.p99),
    total: sum((r) => r.total),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
  };
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export const fmt = (n: number, width = 8) => n.toFixed(0).padStart(width);

/** Runs `bench` for each driver of BENCH_DRIVERS, PostgreSQL only when a server answers. */
export async function forEachDriver(bench: (driver: Driver) => Promise<void>): Promise<void> {
  const drivers = (env.BENCH_DRIVERS ?? 'postgres,pglite').split(',').map((d) => d.trim()) as Driver[];
  for (const driver of drivers) {
    if (driver === 'postgres' && !(await postgresAvailable())) {
      console.log('\npostgres: no server answers at DATABASE_URL or 127.0.0.1:5432; skipped');
      continue;
    }
    await bench(driver);
  }
}
