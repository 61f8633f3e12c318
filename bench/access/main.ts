// `npm run bench:access` (issue 11): what a builder token costs against the API client's own
// access token, measured in the same run over HTTP with the load from a second process
// (autocannon, bench/support/load.ts). A builder token is looked up by its SHA-256 on every
// request (one indexed join of token, builder and API client; `lastUsedAt` written at most once a
// minute), where the API client's JWT is verified and its client row re-read. A builder limited
// to some projects adds one lookup of the application's project on routes naming an
// application. Prints requests/s, p50 and p99 of each side and their ratio; asserts nothing.
//
// Environment: as bench/support/measure.ts (BENCH_SECONDS, BENCH_WARMUP, BENCH_ROUNDS,
// BENCH_PREWARM, BENCH_CONNECTIONS, BENCH_DRIVERS).
import type { Driver } from '../../src/storage/db.ts';
import { startTestPlatform } from '../../test/support/platform.ts';
import { createTenant, createTodoApp } from '../../test/support/tenant.ts';
import { addBuilder } from '../../test/access/builders-support.ts';
import { alternate, fmt, forEachDriver, mean, measure, median, settingsLine, type Measured, type PlannedRequest } from '../support/measure.ts';

const line = (label: string, r: Measured) =>
  `    ${label.padEnd(22)} ${fmt(r.requestsPerSecond)} req/s   p50 ${fmt(r.p50, 4)} ms   p99 ${fmt(r.p99, 4)} ms   (${r.total} requests, ${r.non2xx} non-2xx, ${r.errors} errors)`;

async function compare(origin: string, title: string, builder: PlannedRequest, client: PlannedRequest): Promise<void> {
  console.log(`  ${title}`);
  const rounds = await alternate(
    (seconds) => measure(origin, [builder], seconds),
    (seconds) => measure(origin, [client], seconds),
  );
  const mine = mean(rounds.first);
  const base = mean(rounds.second);
  console.log(line('builder token', mine));
  console.log(line('API client token', base));
  const perRound = rounds.first.map((r, i) => r.requestsPerSecond / rounds.second[i].requestsPerSecond);
  console.log(`    ratio                  ${(mine.requestsPerSecond / base.requestsPerSecond).toFixed(2)}× req/s; per round ${perRound.map((r) => r.toFixed(2)).join(', ')} (median ${median(perRound).toFixed(2)}×)`);
}

async function benchDriver(driver: Driver): Promise<void> {
  const t = await startTestPlatform(driver);
  try {
    const tenant = await createTenant(t, 'Bench access');
    const app = await createTodoApp(tenant);
    const unscoped = await addBuilder(tenant.api, 'viewer');
    const scoped = await addBuilder(tenant.api, 'viewer', [tenant.projectId]);
    const headers = (token: string) => ({ authorization: `Bearer ${token}`, 'x-svc-api-client': tenant.api.apiKey! });
    const client = headers(tenant.api.token!);
    const origin = new URL(t.baseUrl).origin;
    console.log(`\n${driver}:`);
    console.log(settingsLine);
    const project = `/v1/projects/${tenant.projectId}`;
    await compare(origin, `GET ${project.replace(tenant.projectId, '{projectId}')} (every project)`, { path: project, headers: headers(unscoped.token) }, { path: project, headers: client });
    const status = `/v1/applications/${app.id}/status`;
    await compare(origin, `GET ${status.replace(app.id, '{applicationId}')} (builder scoped to the project)`, { path: status, headers: headers(scoped.token) }, { path: status, headers: client });
  } finally {
    await t.close();
  }
}

await forEachDriver(benchDriver);
