// The request log's cost (issue 26): the same requests with the log on and off in one run, on the
// same service, alternating rounds (bench/support/measure.ts), so a drift of the machine's load hits
// both alike. Prints both figures, the ratio and the cost in % of throughput (target < 5 %), the CPU
// per request of the service and of the database (PostgreSQL's processes, read from /proc) on and
// off, the rows per statement the writer made, and the writer's work alone at that batch size.
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

/** The processes whose CPU is the database's: the backends of the bench's database and the server's WAL writer, checkpointer and background writer. */
async function databasePids(db: Db): Promise<number[]> {
  if (db.driver !== 'postgres') return [];
  const result = await sql<{ pid: number }>`select pid from pg_stat_activity
    where datname = current_database() or backend_type in ('walwriter', 'checkpointer', 'background writer')`.execute(db.kysely);
  return result.rows.map((r) => r.pid);
}

/**
 * The database's CPU in ms while `run` runs, on PostgreSQL on this machine (/proc of its processes;
 * the auxiliary ones are shared with other databases of the server, so other load can add a little).
 * 0 on PGlite, which runs in this process: its work is in the service's CPU.
 */
async function databaseCpuDuring<T>(db: Db, run: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const before = processCpuMs(await databasePids(db));
  const result = await run();
  const after = processCpuMs([...new Set([...before.keys(), ...(await databasePids(db))])]);
  let ms = 0;
  // A backend opened during the run counts whole; one closed during it is lost (pools keep theirs under load).
  for (const [pid, total] of after) ms += Math.max(0, total - (before.get(pid) ?? 0));
  return { result, ms };
}

interface Round extends Measured {
  dbMsPerRequest: number;
}

export async function compareRequestLog(db: Db, origin: string, name: string, requests: PlannedRequest[]): Promise<void> {
  const writer = requestLogWriter(db);
  const rounds = { on: [] as Round[], off: [] as Round[] };
  const written = { statements: 0, rows: 0 };
  const withLog = (on: boolean) => async (seconds?: number) => {
    writer.enabled = on;
    const statements = writer.written.statements;
    const rows = writer.written.rows;
    try {
      const { result, ms } = await databaseCpuDuring(db, () => measure(origin, requests, seconds));
      const round = { ...result, dbMsPerRequest: ms / Math.max(result.requestsPerSecond * ((seconds ?? SECONDS) + WARMUP), 1) };
      // The prewarm (given its seconds) is not kept.
      if (seconds === undefined) rounds[on ? 'on' : 'off'].push(round);
      return round;
    } finally {
      // Rows of this side are written before the other side runs.
      await writer.flush();
      writer.enabled = true;
      if (on && seconds === undefined) {
        written.statements += writer.written.statements - statements;
        written.rows += writer.written.rows - rows;
      }
    }
  };
  await alternate(withLog(true), withLog(false));
  const on = mean(rounds.on);
  const off = mean(rounds.off);
  const postgres = db.driver === 'postgres';
  // Each round's on/off pair ran back to back: the median of their ratios resists a drift of the machine's load.
  const perRound = (pick: (r: Round) => number) => median(rounds.on.map((r, i) => pick(r) / pick(rounds.off[i])));
  const throughput = perRound((r) => r.requestsPerSecond);
  const middle = (side: Round[], pick: (r: Round) => number) => median(side.map(pick));
  console.log(`  request log on vs off: ${name}`);
  const line = (label: string, r: Measured, side: Round[]) =>
    `    ${label.padEnd(12)} ${fmt(r.requestsPerSecond)} req/s   p99 ${fmt(r.p99, 4)} ms   CPU per request (median of rounds): service ${middle(side, (x) => x.cpuMsPerRequest).toFixed(3)} ms` +
    (postgres ? `, database ${middle(side, (x) => x.dbMsPerRequest).toFixed(3)} ms` : '') +
    `   (${r.total} requests, ${r.non2xx} non-2xx; rounds ${side.map((x) => x.requestsPerSecond.toFixed(0)).join(', ')} req/s)`;
  console.log(line('log on', on, rounds.on));
  console.log(line('log off', off, rounds.off));
  console.log(
    `    ratio        ${throughput.toFixed(3)}× req/s, median of ${rounds.on.length} rounds (of the means ${(on.requestsPerSecond / off.requestsPerSecond).toFixed(3)}×): the log costs ${((1 - throughput) * 100).toFixed(1)} % of throughput (target < 5 %)`,
  );
  // CPU per request counts the log's own work whatever else loads the machine.
  const pct = (x: number) => `${x >= 1 ? '+' : ''}${((x - 1) * 100).toFixed(1)} %`;
  const serviceCpu = perRound((r) => r.cpuMsPerRequest);
  console.log(`    CPU ratio    service ${serviceCpu.toFixed(3)}× (${pct(serviceCpu)})` + (postgres ? `, database ${perRound((r) => r.dbMsPerRequest).toFixed(3)}× (${pct(perRound((r) => r.dbMsPerRequest))}), both ${perRound((r) => r.cpuMsPerRequest + r.dbMsPerRequest).toFixed(3)}× (${pct(perRound((r) => r.cpuMsPerRequest + r.dbMsPerRequest))})` : '') + ' per request, medians of rounds');
  const batch = written.statements > 0 ? written.rows / written.statements : 0;
  console.log(`    batches      ${written.statements} statements for ${written.rows} rows in the measured rounds: ${batch.toFixed(0)} rows per statement`);
  await writerCost(db, Math.max(1, Math.round(batch)), middle(rounds.off, (x) => x.cpuMsPerRequest), postgres ? middle(rounds.off, (x) => x.dbMsPerRequest) : 0);
}

/**
 * The log's work alone, in CPU time (not wall time, so other load on the machine distorts it less):
 * ROWS rows added and written in batches of the size the measured rounds made, in this process and
 * in the database (on PGlite both are this process), against the CPU one request costs with the log
 * off. An estimate of the cost that does not depend on how throughput swings on a loaded machine.
 */
async function writerCost(db: Db, batchRows: number, serviceMs: number, databaseMs: number): Promise<void> {
  const ROWS = 20_000;
  const writer = requestLogWriter(db);
  const applicationId = (await db.kysely.selectFrom('appbuilder.applications').select('id').executeTakeFirstOrThrow()).id;
  const started = process.cpuUsage();
  const wall = performance.now();
  const { ms: dbMs } = await databaseCpuDuring(db, async () => {
    for (let i = 0; i < ROWS; i++) {
      writer.add({ at: new Date(), applicationId, serverVersion: '0.0.0-bench', method: 'GET', route: '/toDos/:id', status: 200, durationMs: 1.234, userId: null, bytes: 321, errorType: null });
      // The runtime adds rows between requests; a flush per batch is the batch the timer makes.
      if (i % batchRows === batchRows - 1) await writer.flush();
    }
    await writer.flush();
  });
  const used = process.cpuUsage(started);
  const serviceUs = (used.user + used.system) / ROWS;
  const databaseUs = (dbMs * 1000) / ROWS;
  const wallUs = ((performance.now() - wall) * 1000) / ROWS;
  const share = (us: number, ms: number) => ((us / 1000 / ms) * 100).toFixed(1);
  const request = serviceMs + databaseMs;
  console.log(
    `    writer alone ${serviceUs.toFixed(1)} µs CPU per row in this process` + (db.driver === 'postgres' ? ` + ${databaseUs.toFixed(1)} µs in the database` : '') +
      ` (${wallUs.toFixed(1)} µs wall; batches of ${batchRows}): ${share(serviceUs + databaseUs, request)} % of the ${request.toFixed(3)} ms CPU a request costs with the log off` +
      (db.driver === 'postgres' ? ` (service ${share(serviceUs, serviceMs)} % of ${serviceMs.toFixed(3)} ms, database ${share(databaseUs, databaseMs)} % of ${databaseMs.toFixed(3)} ms)` : ''),
  );
}
