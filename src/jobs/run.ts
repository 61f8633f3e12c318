import type { JobWithMetadata } from 'pg-boss';
import type { JobRecord, JobStore } from './store.ts';

/** What a job carries in pg-boss: only the row id; the row holds everything else. */
export interface QueuedJobData {
  jobId: string;
}

/** The subset of pino's logger the queue uses. */
export interface JobLogger {
  info(details: object, message?: string): void;
  warn(details: object, message?: string): void;
  error(details: object, message?: string): void;
}

export interface JobContext {
  /** 1 for the first attempt. */
  attempt: number;
  /** No retry follows if this attempt fails. */
  finalAttempt: boolean;
  /** Aborted when the attempt lost its claim (lease expired, shutdown): its result will be discarded. */
  signal: AbortSignal;
  logger: JobLogger;
}

/** Does the work of one job; what it returns is merged into the row's metadata. */
export type JobHandler = (job: JobRecord, ctx: JobContext) => Promise<Record<string, unknown> | void>;

const SETTLED = new Set(['succeeded', 'failed', 'cancelled']);

/**
 * One attempt of one job: the row goes `running`, then `succeeded`, or back to `queued`
 * with the error (a retry follows), or `failed` on the last attempt. The error is
 * rethrown so pg-boss schedules the retry with its backoff.
 */
export async function runJob(input: {
  store: JobStore;
  logger: JobLogger;
  handler: JobHandler;
  job: JobWithMetadata<QueuedJobData>;
  final: boolean;
}): Promise<void> {
  const { store, logger, handler, job, final } = input;
  const row = await store.get(job.data.jobId);
  if (!row) {
    // Deleted with its project (cascade): nothing left to do.
    logger.warn({ jobId: job.data.jobId, queue: job.name }, 'job row not found; dropping the queued job');
    return;
  }
  // Settled but pg-boss was not told (the process died in between): never run it twice.
  if (SETTLED.has(row.status)) return;

  await store.markRunning(row.id);
  const context: JobContext = {
    attempt: job.retryCount + 1,
    finalAttempt: final,
    signal: job.signal,
    logger,
  };
  let result: Record<string, unknown> | void;
  try {
    result = await handler({ ...row, status: 'running' }, context);
  } catch (error) {
    // A lost claim means another attempt owns the row now; leave it alone.
    if (!job.signal.aborted) await store.markFailed(row.id, error, final);
    throw error;
  }
  if (job.signal.aborted) return;
  // Read again: the handler may have written metadata of its own meanwhile.
  const current = (await store.get(row.id)) ?? row;
  await store.markSucceeded(row.id, { ...current.metadata, ...(result ?? {}) });
}
