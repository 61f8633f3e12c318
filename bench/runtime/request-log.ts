// The request log's cost (issue 26): the same requests with the log on and off in one run, on the
// same service, alternating rounds (bench/support/measure.ts), so a drift of the machine's load hits
// both alike. Prints both figures, the ratio and the cost in % of throughput (target < 5 %).
import type { Db } from '../../src/storage/db.ts';
import { requestLogWriter } from '../../src/monitoring/request-log.ts';
import { alternate, fmt, mean, measure, median, type PlannedRequest } from '../support/measure.ts';

export async function compareRequestLog(db: Db, origin: string, name: string, requests: PlannedRequest[]): Promise<void> {
  const writer = requestLogWriter(db);
  const withLog = (on: boolean) => async (seconds?: number) => {
    writer.enabled = on;
    try {
      return await measure(origin, requests, seconds);
    } finally {
      // Rows of this side are written before the other side runs.
      await writer.flush();
      writer.enabled = true;
    }
  };
  const { first: onRounds, second: offRounds } = await alternate(withLog(true), withLog(false));
  const on = mean(onRounds);
  const off = mean(offRounds);
  const perRound = onRounds.map((r, i) => r.requestsPerSecond / offRounds[i].requestsPerSecond);
  console.log(`  request log on vs off: ${name}`);
  const line = (label: string, r: typeof on) =>
    `    ${label.padEnd(12)} ${fmt(r.requestsPerSecond)} req/s   p99 ${fmt(r.p99, 4)} ms   service CPU ${r.cpuMsPerRequest.toFixed(3)} ms/request   (${r.total} requests, ${r.non2xx} non-2xx)`;
  console.log(line('log on', on));
  console.log(line('log off', off));
  const ratio = on.requestsPerSecond / off.requestsPerSecond;
  console.log(
    `    ratio        ${ratio.toFixed(3)}× req/s (median of rounds ${median(perRound).toFixed(3)}×): the log costs ${((1 - ratio) * 100).toFixed(1)} % of throughput (target < 5 %)`,
  );
  // CPU per request of the service's process counts the log's own work whatever else loads the machine.
  const cpu = on.cpuMsPerRequest / off.cpuMsPerRequest;
  console.log(`    CPU ratio    ${cpu.toFixed(3)}× service CPU per request: ${((cpu - 1) * 100).toFixed(1)} % more with the log`);
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
