/**
 * Instant pick-up (DESIGN §8): a sent job is taken at once, not at the worker's next poll. The
 * workers here poll only every 60 s (the fallback), so a job taken within seconds was woken: in
 * the same process by the queue itself, from another pg-boss instance (another process's queue,
 * with its own pool and LISTEN connection) by NOTIFY. With wake-ups off (`instantPickup: false`)
 * the same job waits for the poll. Times are printed, not asserted; the states are.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JobQueue } from '../../src/jobs/queue.ts';
import { JobStore, type JobRecord } from '../../src/jobs/store.ts';
import { migrateControlPlane } from '../../src/storage/migrate.ts';
import { availableDrivers, createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { createOwner, waitFor, type Owner } from './support.ts';

/** Far beyond the waits below: a job taken within them was not found by polling. */
const FALLBACK_POLL_SECONDS = 60;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(await availableDrivers())('instant pick-up on %s', (driver) => {
  let database: TestDatabase;
  let store: JobStore;
  let owner: Owner;
  const queues: JobQueue[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(driver);
    await migrateControlPlane(database.db);
    store = new JobStore(database.db);
    owner = await createOwner(database.db);
  });

  afterEach(async () => {
    for (const queue of queues.splice(0)) await queue.stop();
  });

  afterAll(async () => {
    await database?.drop();
  });

  const start = async (work: boolean, instantPickup = true) => {
    const queue = await JobQueue.start(database.db, store, { work, instantPickup, pollingIntervalSeconds: FALLBACK_POLL_SECONDS, stopTimeoutMs: 2_000 });
    queues.push(queue);
    return queue;
  };
  /** A worker for `generation` jobs that notes when it took each; its first (empty) fetch is behind it. */
  const worker = async (queue: JobQueue, taken: Map<string, number>) => {
    await queue.register('generation', async (job: JobRecord) => {
      taken.set(job.id, performance.now());
      return {};
    });
    await sleep(3_000);
  };
  const send = async (queue: JobQueue) => {
    const job = await store.create({ ...owner, applicationId: null, jobType: 'generation', metadata: {} });
    const sentAt = performance.now();
    await queue.enqueue(job);
    return { job, sentAt };
  };
  const settled = (id: string, timeoutMs: number) => waitFor(async () => (await store.get(id))!, (job) => job.status === 'succeeded', timeoutMs);

  it('a job sent by the working process wakes its own worker', async () => {
    const taken = new Map<string, number>();
    const queue = await start(true);
    await worker(queue, taken);
    const { job, sentAt } = await send(queue);
    expect((await settled(job.id, 20_000)).status).toBe('succeeded');
    console.log(`[instant-pickup] ${driver}, same process: taken ${(taken.get(job.id)! - sentAt).toFixed(0)} ms after the send`);
  });

  if (driver === 'pglite') console.info('[instant-pickup] pglite: one process owns the embedded store, so the case of another process runs on PostgreSQL only.');
  it.skipIf(driver === 'pglite')('a job sent by another process wakes the worker through NOTIFY', async () => {
    const taken = new Map<string, number>();
    await worker(await start(true), taken);
    const sender = await start(false);
    const { job, sentAt } = await send(sender);
    expect((await settled(job.id, 20_000)).status).toBe('succeeded');
    console.log(`[instant-pickup] ${driver}, another pg-boss instance: taken ${(taken.get(job.id)! - sentAt).toFixed(0)} ms after the send`);
  });

  it('without wake-ups the same job waits for the poll', async () => {
    const taken = new Map<string, number>();
    const queue = await start(true, false);
    await worker(queue, taken);
    const { job } = await send(queue);
    await sleep(5_000);
    expect((await store.get(job.id))!.status).toBe('queued');
    expect(taken.has(job.id)).toBe(false);
  });
});
