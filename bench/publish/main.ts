// `npm run bench:publish` (issue 17): how long from a publish request to the first 200 answered by
// the new version, for BENCH_APPS applications (default 100) published one after another, each a
// fresh to-do app (its deployment creates the app's schema and tables). The first request is a
// real data read (`GET …/toDos?limit=1` with management credentials), asked every 2 ms until it
// answers 200. Prints the median and p90 (target: median < 300 ms) and, as the baseline in the same
// run, the same publishes with the job queue polling only (pg-boss's 2 s poll, no wake-up: how it
// was before), on BENCH_BASELINE_APPS applications (default 20); the ratio is baseline / instant.
// Also printed: the publish request alone and the deployment job's own run (queued → succeeded
// minus the wait), so a slow figure shows where its time went. Runs on PostgreSQL (a fresh
// database, dropped afterwards) and PGlite (in memory); asserts nothing.
//
// Environment: BENCH_APPS, BENCH_BASELINE_APPS, BENCH_DRIVERS (default "postgres,pglite").
import { loadConfig } from '../../src/config.ts';
import { startPlatform, type Platform } from '../../src/platform.ts';
import type { Driver } from '../../src/storage/db.ts';
import { createTestDatabase, type TestDatabase } from '../../test/support/databases.ts';
import { ApiClient } from '../../test/support/client.ts';
import { BOOTSTRAP, GENEROUS_APP_LIMITS } from '../../test/support/platform.ts';
import { todoScode } from '../../test/support/examples.ts';
import { forEachDriver, median } from '../support/measure.ts';

const env = process.env;
const APPS = Number(env.BENCH_APPS ?? 100);
const BASELINE_APPS = Number(env.BENCH_BASELINE_APPS ?? 20);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Published {
  /** Publish request sent → first 200 from the version (ms). */
  total: number;
  /** The publish request alone (ms). */
  request: number;
}

interface Side {
  label: string;
  instantPickup: boolean;
}

const p90 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(values.length * 0.9) - 1)];

async function startOn(database: TestDatabase, side: Side): Promise<{ platform: Platform; client: ApiClient; url: string }> {
  const config = loadConfig({ ...process.env, ...GENEROUS_APP_LIMITS, APPBUILDER_TOKEN_RATE_LIMIT: '100000' }, { bootstrapClient: BOOTSTRAP, port: 0, host: '127.0.0.1' });
  // The baseline polls every 2 s, pg-boss's default and what the queue did before wake-ups.
  const queue = side.instantPickup ? {} : { instantPickup: false, pollingIntervalSeconds: 2 };
  const platform = await startPlatform(config, { db: database.db, logger: false, queue });
  const url = await platform.server.listen({ port: 0, host: '127.0.0.1' });
  const admin = await ApiClient.login(url, { apiKey: BOOTSTRAP.id, secret: BOOTSTRAP.secret });
  const customer = await admin.post<{ apiClient: { apiKey: string; secret: string } }>('/v1/customers', { name: `Publish ${side.label}` });
  const client = await ApiClient.login(url, customer.body.apiClient);
  return { platform, client, url };
}

async function publishAll(url: string, client: ApiClient, count: number): Promise<Published[]> {
  const project = await client.post<{ id: string }>('/v1/projects', { name: `Publish ${Date.now()}` });
  const apps: Array<{ id: string; serverVersion: string }> = [];
  for (let i = 0; i < count; i++) {
    const created = await client.post<{ id: string; serverVersion: string }>('/v1/applications', { projectId: project.body.id, name: `To-do ${i}`, scode: todoScode() });
    if (created.status !== 201) throw new Error(`create answered ${created.status}: ${created.text}`);
    apps.push(created.body);
  }
  const headers = { authorization: `Bearer ${client.token}`, 'x-svc-api-client': client.apiKey! };
  const results: Published[] = [];
  for (const app of apps) {
    const target = `${url}/apps/${app.id}/api/v${app.serverVersion}/toDos?limit=1`;
    const start = performance.now();
    const reply = await client.post(`/v1/applications/${app.id}/publish`, {});
    const request = performance.now() - start;
    if (reply.status !== 202) throw new Error(`publish answered ${reply.status}: ${reply.text}`);
    for (;;) {
      const answer = await fetch(target, { headers });
      await answer.arrayBuffer();
      if (answer.status === 200) break;
      if (performance.now() - start > 60_000) throw new Error(`${target} still answers ${answer.status} after 60 s`);
      await sleep(2);
    }
    results.push({ total: performance.now() - start, request });
  }
  return results;
}

/** The deployment jobs queued since `since`, from their rows: the wait to be taken, and their own run (ms). */
async function jobTimes(database: TestDatabase, since: Date): Promise<{ wait: number[]; run: number[] }> {
  const rows = await database.db.kysely
    .selectFrom('appbuilder.jobs')
    .select(['created_at', 'started_at', 'completed_at'])
    .where('job_type', '=', 'deployment')
    .where('status', '=', 'succeeded')
    .where('created_at', '>=', since)
    .execute();
  const ms = (d: Date | string) => new Date(d).getTime();
  const done = rows.filter((r) => r.started_at && r.completed_at);
  return { wait: done.map((r) => ms(r.started_at!) - ms(r.created_at)), run: done.map((r) => ms(r.completed_at!) - ms(r.started_at!)) };
}

interface Figures {
  label: string;
  results: Published[];
  jobs: { wait: number[]; run: number[] };
}

const describe = ({ label, results, jobs }: Figures) =>
  `    ${label.padEnd(24)} median ${median(results.map((r) => r.total)).toFixed(0).padStart(5)} ms   p90 ${p90(results.map((r) => r.total)).toFixed(0).padStart(5)} ms` +
  `   (${results.length} apps; medians: publish request ${median(results.map((r) => r.request)).toFixed(0)} ms, ` +
  `job queued → taken ${median(jobs.wait).toFixed(0)} ms, job's run ${median(jobs.run).toFixed(0)} ms)`;

async function benchDriver(driver: Driver): Promise<void> {
  const started = Date.now();
  const database = await createTestDatabase(driver);
  try {
    const sides: Array<{ side: Side; count: number }> = [
      { side: { label: 'instant pick-up', instantPickup: true }, count: APPS },
      { side: { label: 'polling only (baseline)', instantPickup: false }, count: BASELINE_APPS },
    ];
    const figures: Figures[] = [];
    for (const { side, count } of sides) {
      if (count <= 0) continue;
      const { platform, client, url } = await startOn(database, side);
      try {
        const since = new Date();
        const results = await publishAll(url, client, count);
        figures.push({ label: side.label, results, jobs: await jobTimes(database, since) });
      } finally {
        await platform.close();
      }
    }
    console.log(`\n${driver}: publish request → first 200 from the new version (to-do app, one publish at a time), ${((Date.now() - started) / 1000).toFixed(0)} s`);
    for (const figure of figures) console.log(describe(figure));
    if (figures.length === 2) {
      const [instant, polling] = figures.map(({ results }) => median(results.map((r) => r.total)));
      console.log(`    ratio (baseline median / instant median): ${(polling / instant).toFixed(1)}×   target: instant median < 300 ms`);
    }
  } finally {
    await database.drop();
  }
}

await forEachDriver(benchDriver);
