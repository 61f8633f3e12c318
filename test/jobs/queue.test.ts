import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JobQueue, type JobContext, type JobQueueOptions } from '../../src/jobs/queue.ts';
import { JobStore, type JobRecord, type JobType } from '../../src/jobs/store.ts';
import { migrateControlPlane } from '../../src/storage/migrate.ts';
import { availableDrivers, createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { FAST, createOwner, installStatusLog, statusLog, waitFor, type Owner } from './support.ts';

const drivers = await availableDrivers();

describe.each(drivers)('job queue on %s', (driver) => {
  let database: TestDatabase;
  let store: JobStore;
  let owner: Owner;
  let queue: JobQueue | undefined;

  beforeAll(async () => {
    database = await createTestDatabase(driver);
    await migrateControlPlane(database.db);
    await installStatusLog(database.db);
    store = new JobStore(database.db);
    owner = await createOwner(database.db);
  });

  afterEach(async () => {
    await queue?.stop();
    queue = undefined;
  });

  afterAll(async () => {
    await database?.drop();
  });

  const start = async (options: Partial<JobQueueOptions> = {}) => {
    queue = await JobQueue.start(database.db, store, { work: true, ...FAST, ...options });
    return queue;
  };
  const createJob = (jobType: JobType, metadata: Record<string, unknown> = {}) =>
    store.create({ ...owner, applicationId: null, jobType, metadata });
  const settled = (id: string) =>
    waitFor(
      async () => (await store.get(id))!,
      (job) => job.status === 'succeeded' || job.status === 'failed',
    );
  const bossJob = async (id: string) => {
    const result = await sql<{ state: string; retry_count: number; retry_limit: number; retry_backoff: boolean }>`
      select state, retry_count, retry_limit, retry_backoff from pgboss.job where id = ${id}`.execute(database.db.kysely);
    return result.rows;
  };

  it('runs a job: queued → running → succeeded, with the handler result merged into metadata', async () => {
    const seen: Array<{ status: string; attempt: number }> = [];
    const jobs = await start();
    await jobs.register('generation', async (job, ctx) => {
      seen.push({ status: (await store.get(job.id))!.status, attempt: ctx.attempt });
      return { files: 3 };
    });
    const job = await jobs.enqueue(await createJob('generation', { source: 'test' }));
    expect(job.implementationJobId).toBe(job.id);

    const done = await settled(job.id);
    expect(done.status).toBe('succeeded');
    expect(done.metadata).toEqual({ source: 'test', files: 3 });
    expect(done.implementationJobId).toBe(job.id);
    expect(done.startedAt).toBeDefined();
    expect(done.completedAt).toBeDefined();
    expect(done.errorMessage).toBeUndefined();
    expect(seen).toEqual([{ status: 'running', attempt: 1 }]);
    expect(await statusLog(database.db, job.id)).toEqual([
      { status: 'queued', error: null },
      { status: 'running', error: null },
      { status: 'succeeded', error: null },
    ]);
  });

  it('retries a failing handler with backoff and ends failed, keeping the error', async () => {
    const calls: Array<Pick<JobContext, 'attempt' | 'finalAttempt'>> = [];
    const jobs = await start();
    await jobs.register(
      'figma_code_generation',
      async (_job, ctx) => {
        calls.push({ attempt: ctx.attempt, finalAttempt: ctx.finalAttempt });
        throw new Error(`boom ${ctx.attempt}`);
      },
      { retryLimit: 2, retryDelaySeconds: 1 },
    );
    const job = await jobs.enqueue(await createJob('figma_code_generation'));

    const done = await settled(job.id);
    expect(done.status).toBe('failed');
    expect(done.errorMessage).toBe('boom 3');
    expect(done.errorStack).toContain('boom 3');
    expect(done.errorStack).toContain('queue.test.ts');
    expect(done.completedAt).toBeDefined();
    expect(calls).toEqual([
      { attempt: 1, finalAttempt: false },
      { attempt: 2, finalAttempt: false },
      { attempt: 3, finalAttempt: true },
    ]);
    // Between attempts the row is back to queued with the last error.
    expect(await statusLog(database.db, job.id)).toEqual([
      { status: 'queued', error: null },
      { status: 'running', error: null },
      { status: 'queued', error: 'boom 1' },
      { status: 'running', error: null },
      { status: 'queued', error: 'boom 2' },
      { status: 'running', error: null },
      { status: 'failed', error: 'boom 3' },
    ]);
    await waitFor(() => bossJob(job.id), (rows) => rows[0]?.state === 'failed');
    expect(await bossJob(job.id)).toEqual([{ state: 'failed', retry_count: 2, retry_limit: 2, retry_backoff: true }]);
  });

  it('ends succeeded when a handler fails once and then succeeds', async () => {
    const jobs = await start();
    await jobs.register(
      'deployment',
      async (_job, ctx) => {
        if (ctx.attempt === 1) throw new Error('flaky');
        return { deployed: true };
      },
      { retryLimit: 3, retryDelaySeconds: 1 },
    );
    const job = await jobs.enqueue(await createJob('deployment'));

    const done = await settled(job.id);
    expect(done.status).toBe('succeeded');
    expect(done.metadata).toEqual({ deployed: true });
    expect(await statusLog(database.db, job.id)).toEqual([
      { status: 'queued', error: null },
      { status: 'running', error: null },
      { status: 'queued', error: 'flaky' },
      { status: 'running', error: null },
      { status: 'succeeded', error: null },
    ]);
  });

  it('sends, at start, a queued row that was committed but never sent', async () => {
    const ran: string[] = [];
    // Committed, then the process "died" before enqueue: no implementation id.
    const lost = await createJob('frontend_bundle');
    await sql`update appbuilder.jobs set created_at = now() - interval '1 minute' where id = ${lost.id}`.execute(database.db.kysely);
    // Just committed: its sender may still be about to send it, so the sweep leaves it.
    const fresh = await createJob('frontend_bundle');

    const jobs = await start({ recoverAfterSeconds: 30 });
    expect((await store.get(lost.id))!.implementationJobId).toBe(lost.id);
    expect((await store.get(fresh.id))!.implementationJobId).toBeUndefined();

    await jobs.register('frontend_bundle', async (job) => {
      ran.push(job.id);
      return { bundled: true };
    });
    expect((await settled(lost.id)).metadata).toEqual({ bundled: true });

    // Sending again (a second sweep racing the first) adds no second job.
    await jobs.enqueue(lost);
    expect(await bossJob(lost.id)).toHaveLength(1);

    // Once old enough, a later sweep sends the other one too.
    await sql`update appbuilder.jobs set created_at = now() - interval '1 minute' where id = ${fresh.id}`.execute(database.db.kysely);
    await jobs.sweep();
    expect((await settled(fresh.id)).status).toBe('succeeded');
    expect(ran.sort()).toEqual([lost.id, fresh.id].sort());
  });

  it('stop() lets a running handler finish', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const jobs = await start();
    await jobs.register('specification_generation', async () => {
      started();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { finished: true };
    });
    const job = await jobs.enqueue(await createJob('specification_generation'));
    await running;
    await jobs.stop();
    const after: JobRecord = (await store.get(job.id))!;
    expect(after.status).toBe('succeeded');
    expect(after.metadata).toEqual({ finished: true });
  });

  it('work() and send() run plain queues without job rows', async () => {
    const received: Array<{ data: unknown; attempt: number }> = [];
    const jobs = await start();
    await jobs.work<{ event: string }>('events.test', async (data, ctx) => {
      received.push({ data, attempt: ctx.attempt });
    });
    expect(await jobs.send('events.test', { event: 'ToDo.created' })).toEqual(expect.any(String));
    await waitFor(async () => received.length, (count) => count > 0);
    expect(received).toEqual([{ data: { event: 'ToDo.created' }, attempt: 1 }]);
  });

  it('schedule() stores a cron schedule with its time zone and unschedule() removes it', async () => {
    const jobs = await start({ work: false });
    await jobs.schedule('nightly.test', '0 3 * * *', { reason: 'cleanup' }, { tz: 'Europe/Paris' });
    const schedules = () =>
      sql<{ cron: string; timezone: string; data: unknown }>`select cron, timezone, data from pgboss.schedule where name = 'nightly.test'`
        .execute(database.db.kysely)
        .then((result) => result.rows);
    expect(await schedules()).toEqual([{ cron: '0 3 * * *', timezone: 'Europe/Paris', data: { reason: 'cleanup' } }]);
    await jobs.unschedule('nightly.test');
    expect(await schedules()).toEqual([]);
  });
});
