import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JobQueue } from '../../src/jobs/queue.ts';
import { JobStore, type JobRecord, type JobType } from '../../src/jobs/store.ts';
import { migrateControlPlane } from '../../src/storage/migrate.ts';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../support/databases.ts';
import { FAST, attempts, createOwner, installStatusLog, recordAttempt, waitFor, type Owner } from './support.ts';

const hasPostgres = await postgresAvailable();
if (!hasPostgres) console.warn('[tests] killed-worker: PostgreSQL does not answer, so no second process can share the queue; skipped.');

const WORKER = fileURLToPath(new URL('./fixtures/worker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EXPIRE_SECONDS = 3;

/** Resolves with the first stdout line of `child` that starts with `prefix`. */
function lineFrom(child: ChildProcess, prefix: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    let errors = '';
    child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const line = buffered.split('\n').find((candidate) => candidate.startsWith(prefix));
      if (line) resolve(line);
    });
    child.on('exit', (code) => reject(new Error(`worker exited (${code}) before printing "${prefix}": ${errors}`)));
  });
}

describe.skipIf(!hasPostgres)('a job whose worker is killed mid-run (PostgreSQL)', () => {
  let database: TestDatabase;
  let store: JobStore;
  let owner: Owner;
  let child: ChildProcess | undefined;
  let queue: JobQueue | undefined;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    await migrateControlPlane(database.db);
    await installStatusLog(database.db);
    store = new JobStore(database.db);
    owner = await createOwner(database.db);
  });

  afterEach(async () => {
    child?.kill('SIGKILL');
    await queue?.stop();
    queue = undefined;
  });

  afterAll(async () => {
    await database?.drop();
  });

  /** Sends a job from here, lets a child process take it, and kills the child mid-run. */
  async function killWorkerDuring(jobType: JobType, retryLimit: number): Promise<JobRecord> {
    const sender = await JobQueue.start(database.db, store, { work: false, ...FAST });
    await sender.register(jobType, async () => {}, { retryLimit, retryDelaySeconds: 1, expireInSeconds: EXPIRE_SECONDS });
    const job = await sender.enqueue(await store.create({ ...owner, applicationId: null, jobType }));
    await sender.stop();

    child = spawn(process.execPath, ['--import', 'tsx', WORKER, database.url!, jobType, String(retryLimit), String(EXPIRE_SECONDS)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(await lineFrom(child, 'taken ')).toBe(`taken ${job.id}`);
    expect((await store.get(job.id))!.status).toBe('running');
    child.kill('SIGKILL');
    await once(child, 'exit');
    return job;
  }

  const settled = (id: string, poll: () => Promise<unknown> = async () => {}) =>
    waitFor(
      async () => {
        await poll();
        return (await store.get(id))!;
      },
      (row) => row.status === 'succeeded' || row.status === 'failed',
    );

  it('is taken again by another worker after its lease expires, and succeeds', async () => {
    const job = await killWorkerDuring('deployment', 2);

    // A second worker, here, finds the job once the dead worker's lease has run out.
    queue = await JobQueue.start(database.db, store, { work: true, ...FAST });
    await queue.register(
      'deployment',
      async (running, ctx) => {
        await recordAttempt(database.db, running.id, 'second');
        return { worker: 'second', attempt: ctx.attempt };
      },
      { retryLimit: 2, retryDelaySeconds: 1, expireInSeconds: EXPIRE_SECONDS },
    );
    const done = await settled(job.id);
    expect(done.status).toBe('succeeded');
    expect(done.metadata).toEqual({ worker: 'second', attempt: 2 });
    expect(await attempts(database.db, job.id)).toEqual(['child', 'second']);
  });

  it('ends failed when the worker dies on the last attempt (found by the recovery sweep)', async () => {
    const job = await killWorkerDuring('figma_code_generation', 0);

    // No retry is left, so no worker will touch the row again: the sweep settles it.
    queue = await JobQueue.start(database.db, store, { work: false, ...FAST });
    const done = await settled(job.id, () => queue!.sweep());
    expect(done.status).toBe('failed');
    expect(done.errorMessage).toBe('job timed out');
    expect(await attempts(database.db, job.id)).toEqual(['child']);
  });
});
