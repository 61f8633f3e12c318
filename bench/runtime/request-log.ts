// The request log's cost (issue 26): the same requests with the log on and off in one run, on the
// same service, alternating rounds (bench/support/measure.ts), so a drift of the machine's load hits
// both alike. Prints both figures, the ratio and the cost in % of throughput (target < 5 %).
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { Db } from '../../src/storage/db.ts';
import { requestLogWriter } from '../../src/monitoring/request-log.ts';
import { alternate, fmt, mean, measure, median, SECONDS, WARMUP, type Measured, type PlannedRequest } from '../support/measure.ts';

/** CPU ms so far of the PostgreSQL processes of `pids` (/proc/<pid>/stat utime + stime; a process gone counts 0). */
function processCpuMs(pids: readonly number[]): Map<number, number> {
  const used = new Map<number, number>();
  for (const pid of pids) {
    try {
      // The command may hold spaces and parentheses: fields are counted after the last ')'.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      used.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1000) / 100); // utime, stime in USER_HZ (100)
    } catch {
      used.set(pid, 0);
    }
  }
  return used;
}

/**
 * The database's CPU of one measurement on PostgreSQL on this machine: the backends of the bench's
 * database plus the server's WAL writer, checkpointer and background writer (shared with any other
 * database of the server, so other load can add to that part). Null where /proc or the processes
 * are not readable (PGlite runs in this process: its work is in the service's CPU).
 */
async function withDatabaseCpu(db: Db, seconds: number, run: () => Promise<Measured>): Promise<Measured & { dbMsPerRequest: number }> {
  const pids = async () =>
    db.driver === 'postgres'
      ? (await sql<{ pid: number }>`select pid from pg_stat_activity
          where datname = current_database() or backend_type in ('walwriter', 'checkpointer', 'background writer')`.execute(db.kysely)).rows.map((r) => r.pid)
      : [];
  const before = processCpuMs(await pids());
  const result = await run();
  const after = processCpuMs([...new Set([...before.keys(), ...(await pids())])]);
  let ms = 0;
  for (const [pid, total] of after) ms += Math.max(0, total - (before.get(pid) ?? 0));
  const served = Math.max(result.requestsPerSecond * (seconds + WARMUP), 1);
  return { ...result, dbMsPerRequest: ms / served };
}

export async function compareRequestLog(db: Db, origin: string, name: string, requests: PlannedRequest[]): Promise<void> {
  const writer = requestLogWriter(db);
  // The database's CPU per request of each measured round (the prewarm, given its seconds, is not kept).
  const dbMs = { on: [] as number[], off: [] as number[] };
  const withLog = (on: boolean) => async (seconds?: number) => {
    writer.enabled = on;
    try {
      const result = await withDatabaseCpu(db, seconds ?? SECONDS, () => measure(origin, requests, seconds));
      if (seconds === undefined) dbMs[on ? 'on' : 'off'].push(result.dbMsPerRequest);
      return result;
    } finally {
      // Rows of this side are written before the other side runs.
      await writer.flush();
      writer.enabled = true;
    }
  };
  const { first: onRounds, second: offRounds } = await alternate(withLog(true), withLog(false));
  const on = mean(onRounds);
  const off = mean(offRounds);
  // Each round's on/off pair ran back to back: the median of their ratios resists a drift of the machine's load.
  const perRound = (pick: (r: Measured) => number) => median(onRounds.map((r, i) => pick(r) / pick(offRounds[i])));
  const throughput = perRound((r) => r.requestsPerSecond);
  const serviceCpu = perRound((r) => r.cpuMsPerRequest);
  const databaseCpu = db.driver === 'postgres' ? median(dbMs.on.map((ms, i) => ms / dbMs.off[i])) : Number.NaN;
  console.log(`  request log on vs off: ${name}`);
  const line = (label: string, r: Measured, database: number[]) =>
    `    ${label.padEnd(12)} ${fmt(r.requestsPerSecond)} req/s   p99 ${fmt(r.p99, 4)} ms   service CPU ${r.cpuMsPerRequest.toFixed(3)} ms/request` +
    (database.length > 0 ? `   database CPU ${median(database).toFixed(3)} ms/request` : '') +
    `   (${r.total} requests, ${r.non2xx} non-2xx)`;
  console.log(line('log on', on, dbMs.on));
  console.log(line('log off', off, dbMs.off));
  const ratio = on.requestsPerSecond / off.requestsPerSecond;
  console.log(
    `    ratio        ${throughput.toFixed(3)}× req/s, median of ${onRounds.length} rounds (of the means ${ratio.toFixed(3)}×): the log costs ${((1 - throughput) * 100).toFixed(1)} % of throughput (target < 5 %)`,
  );
  // CPU per request counts the log's own work whatever else loads the machine.
  const pct = (x: number) => `${((x - 1) * 100).toFixed(1)} % more with the log`;
  console.log(`    CPU ratio    ${serviceCpu.toFixed(3)}× service CPU per request (${pct(serviceCpu)})`);
  if (db.driver === 'postgres') console.log(`    CPU ratio    ${databaseCpu.toFixed(3)}× database CPU per request (${pct(databaseCpu)}; its backends, WAL writer, checkpointer, background writer)`);
  await writerCost(db, off.cpuMsPerRequest);
}

/**
 * The writer alone, measured in CPU time (not wall time, so other load on the machine does not
 * distort it): ROWS rows added and written in batches as the runtime does, against the CPU one
 * request costs the service with the log off. On PGlite the inserts run in this process and are
 * counted; on PostgreSQL the server's share is not (its wall time is printed beside).
 */
async function writerCost(db: Db, requestCpuMs: number): Promise<void> {
  const ROWS = 20_000;
  const writer = requestLogWriter(db);
  const applicationId = (await db.kysely.selectFrom('appbuilder.applications').select('id').executeTakeFirstOrThrow()).id;
  const started = process.cpuUsage();
  const wall = performance.now();
  for (let i = 0; i < ROWS; i++) {
    writer.add({ at: new Date(), applicationId, serverVersion: '0.0.0-bench', method: 'GET', route: '/toDos/:id', status: 200, durationMs: 1.234, userId: null, bytes: 321, errorType: null });
    // The runtime adds rows between requests; a flush per 500 rows is the batch the timer makes.
    if (i % 500 === 499) await writer.flush();
  }
  await writer.flush();
  const used = process.cpuUsage(started);
  const cpuUs = (used.user + used.system) / ROWS;
  const wallUs = ((performance.now() - wall) * 1000) / ROWS;
  const share = ((cpuUs / 1000 / requestCpuMs) * 100).toFixed(1);
  console.log(`    writer alone ${cpuUs.toFixed(1)} µs CPU per row in this process (${wallUs.toFixed(1)} µs wall): ${share} % of the ${requestCpuMs.toFixed(3)} ms CPU a request costs with the log off`);
}
