import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../support/databases.ts';
import type { TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp } from '../support/tenant.ts';
import { TICK_TRIGGER, awayFromMinuteEnd, perMinute, scheduleScode, storedSchedules, ticks, untilAfterNextMinute } from './schedule-app.ts';
import { publish, runsOf, sleep, startEventsPlatform, waitFor } from './support.ts';
import { startOn } from '../deployments/support.ts';

const hasPostgres = await postgresAvailable();
const BIN = fileURLToPath(new URL('../../bin/appbuilder.js', import.meta.url));

interface Worker {
  child: ChildProcess;
  output: () => string;
}

/** `appbuilder serve --role worker` over the test's PostgreSQL database, schedules checked every second. */
async function startWorker(url: string): Promise<Worker> {
  let output = '';
  const child = spawn(process.execPath, [BIN, 'serve', '--role', 'worker'], {
    env: { ...process.env, DATABASE_URL: url, APPBUILDER_SCHEDULE_CHECK: '1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`worker exited (${String(code)}): ${output}`);
  });
  await Promise.race([waitFor(async () => output, (text) => text.includes('appbuilder worker taking jobs'), 60_000, 'a worker to start'), exited]);
  exited.catch(() => {});
  return { child, output: () => output };
}

describe.skipIf(!hasPostgres)('a schedule with two worker processes (PostgreSQL)', () => {
  let database: TestDatabase;
  let api: TestPlatform;
  /** Serves the generated app (the api process serves only the management API). */
  let runtime: TestPlatform;
  const workers: Worker[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // This process only serves the management API and sends jobs; the workers run pg-boss's schedule pass.
    api = await startEventsPlatform('postgres', { role: 'api', database });
    runtime = await startOn(database, 'runtime');
    workers.push(...(await Promise.all([startWorker(database.url!), startWorker(database.url!)])));
  }, 120_000);

  afterAll(async () => {
    for (const worker of workers) {
      if (worker.child.exitCode === null) {
        worker.child.kill('SIGTERM');
        await once(worker.child, 'exit');
      }
    }
    await runtime?.close();
    await api?.close();
  }, 60_000);

  it('fires exactly once per tick, and not after its version is unpublished', async () => {
    const tenant = await createTenant(api, 'Cron');
    const created = await createTodoApp(tenant, scheduleScode('* * * * *'));
    await awayFromMinuteEnd();
    // The deployment job is taken by one of the workers, which also moves the schedule.
    const app = { id: created.id, serverVersion: (await publish(tenant, created.id)).serverVersion };
    const read = () => ticks(runtime, tenant, app);

    // The current minute's tick fires at once; the next one at the minute.
    await waitFor(read, (notes) => Object.keys(perMinute(notes)).length >= 2, 130_000, 'ticks of two minutes');
    await sleep(5_000); // a duplicate of the last tick would land within a few seconds
    const fired = await read();
    const counts = perMinute(fired);
    console.info('[schedule-workers] ticks per minute:', counts);
    expect(Object.keys(counts).length).toBeGreaterThanOrEqual(2);
    expect(Object.values(counts).every((n) => n === 1)).toBe(true);
    const runs = await runsOf(api.database.db, app.id);
    expect(runs.map((r) => [r.trigger_id, r.status])).toEqual(fired.map(() => [TICK_TRIGGER, 'succeeded']));
    expect(runs.map((r) => r.input.event?.payload.firedAt).sort()).toEqual(fired);
    const jobs = await sql<{ n: number }>`select count(*)::int as n from pgboss.job where name = 'app-schedule'`.execute(api.database.db.kysely);
    expect(jobs.rows[0].n).toBe(fired.length);

    // Unpublished: the schedule is gone and the next minute passes without a tick.
    expect((await tenant.api.post(`/v1/applications/${app.id}/unpublish`, {})).status).toBe(200);
    expect(await storedSchedules(api.database.db)).toEqual([]);
    await sleep(untilAfterNextMinute(8));
    expect(await runsOf(api.database.db, app.id)).toHaveLength(fired.length);
    for (const worker of workers) expect(worker.child.exitCode).toBeNull();
  }, 240_000);
});
