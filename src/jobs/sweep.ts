import type { PgBoss } from 'pg-boss';
import type { JobRecord, JobStore } from './store.ts';
import type { JobLogger } from './run.ts';

/**
 * The recovery pass, run at start and then periodically by working processes.
 *
 * 1. Rows committed as `queued` but never sent (the process died between the commit and
 *    the send) are sent now. Only rows older than `recoverAfterSeconds`, so a send in
 *    flight elsewhere is not raced; and a double send is a no-op anyway (same job id).
 * 2. Rows still `running` whose pg-boss job ended `failed` (their worker died on the last
 *    attempt, so no later attempt will touch the row) are marked `failed`.
 */
export async function sweep(input: {
  boss: PgBoss;
  store: JobStore;
  recoverAfterSeconds: number;
  enqueue: (job: JobRecord) => Promise<unknown>;
  logger: JobLogger;
}): Promise<void> {
  const { boss, store, logger } = input;
  // Each row on its own: one bad row must not keep the others from being repaired.
  const each = async (jobs: JobRecord[], repair: (job: JobRecord) => Promise<void>) => {
    for (const job of jobs) {
      await repair(job).catch((error: unknown) => logger.error({ err: error, jobId: job.id }, 'job recovery failed'));
    }
  };
  try {
    await each(await store.listUnsent(input.recoverAfterSeconds), async (job) => {
      logger.warn({ jobId: job.id, jobType: job.jobType }, 'sending a job that was committed but never sent');
      await input.enqueue(job);
    });
    await each(await store.listRunning(), async (job) => {
      if (!job.implementationJobId) return;
      const [queued] = await boss.findJobs(job.jobType, { id: job.implementationJobId });
      if (queued && queued.state !== 'failed') return;
      const reason = queued ? outputMessage(queued.output) : 'The queue no longer holds this job.';
      logger.warn({ jobId: job.id, jobType: job.jobType, reason }, 'marking a job failed whose worker was lost');
      await store.markFailed(job.id, new Error(reason), true);
    });
  } catch (error) {
    // The next pass tries again; a sweep never takes the process down.
    logger.error({ err: error }, 'job recovery sweep failed');
  }
}

/** pg-boss stores a thrown error as the output, or `{value: {message}}` for its own timeouts. */
function outputMessage(output: object | null): string {
  const value = (output ?? {}) as { value?: { message?: unknown }; message?: unknown };
  const message = value.message ?? value.value?.message;
  return typeof message === 'string' ? message : 'The job was lost with its worker.';
}
