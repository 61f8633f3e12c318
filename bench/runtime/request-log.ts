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
}
