import type { JobWithMetadata, PgBoss } from 'pg-boss';
import type { Db } from '../storage/db.ts';
import type { JobRecord, JobStore, JobType } from './store.ts';
import { createBoss, DEFAULT_FALLBACK_POLL_SECONDS, type BossOptions } from './boss.ts';
import { runJob, type JobHandler, type JobLogger, type QueuedJobData } from './run.ts';
import { sweep } from './sweep.ts';

export type { JobContext, JobHandler, JobLogger } from './run.ts';

export interface JobQueueOptions extends BossOptions {
  /** Whether this process takes jobs (`serve` and `--role worker`) or only sends them. */
  work: boolean;
  logger?: JobLogger;
  /** A queued row without a queue id older than this was never sent (default 10 s). */
  recoverAfterSeconds?: number;
  /** How often a working process repeats the recovery sweep (default 60 s). */
  sweepIntervalSeconds?: number;
  /** How long `stop()` waits for running handlers (default 30 s). */
  stopTimeoutMs?: number;
  /**
   * Whether a send wakes workers at once (in-process, and elsewhere by NOTIFY); default true.
   * False is polling only, as before (bench:publish's baseline).
   */
  instantPickup?: boolean;
}

export interface RegisterOptions {
  /** Retries after the first attempt (default 2). */
  retryLimit?: number;
  /** First retry delay; doubles (with jitter) on each retry (default 5 s). */
  retryDelaySeconds?: number;
  retryDelayMaxSeconds?: number;
  /** The lease: an attempt not finished by then is failed and retried, here or by another worker (default 15 min). */
  expireInSeconds?: number;
  /** A shorter lease kept alive while the handler runs (pg-boss minimum 10 s); for long jobs. */
  heartbeatSeconds?: number;
  /** Jobs of this type run at once in this process (default 1). */
  concurrency?: number;
}

export interface WorkContext {
  id: string;
  /** 1 for the first attempt. */
  attempt: number;
  signal: AbortSignal;
  /** When the job was sent (for a scheduled job: when its tick fired). */
  createdOn: Date;
}

/** A cron schedule as stored: one per (queue name, key). */
export interface StoredSchedule {
  key: string;
  cron: string;
  timezone: string;
  data: Record<string, unknown>;
}

const silentLogger: JobLogger = { info: () => {}, warn: () => {}, error: () => {} };

/**
 * Durable jobs: our `appbuilder.jobs` rows carry the status the API shows; pg-boss
 * queues, retries, expires and schedules them. One pg-boss queue per job type, named
 * after it; the pg-boss job id is the row id, so sending twice is harmless.
 */
export class JobQueue {
  private readonly queues = new Set<string>();
  /** The pg-boss worker of each queue this process works: a send from here wakes it directly. */
  private readonly workers = new Map<string, string>();
  /** Attempts running here: `stop()` puts back the rows of those that outlive its timeout. */
  private readonly running = new Set<{ id: string; final: boolean }>();
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private stopped = false;

  private constructor(
    private readonly boss: PgBoss,
    private readonly store: JobStore,
    private readonly options: JobQueueOptions,
    private readonly logger: JobLogger,
  ) {}

  static async start(db: Db, store: JobStore, options: JobQueueOptions): Promise<JobQueue> {
    const logger = options.logger ?? silentLogger;
    const boss = createBoss(db, options);
    boss.on('error', (error) => logger.error({ err: error }, 'job queue error'));
    await boss.start();
    const queue = new JobQueue(boss, store, options, logger);
    await queue.sweep();
    if (options.work) {
      queue.sweepTimer = setInterval(() => void queue.sweep(), (options.sweepIntervalSeconds ?? 60) * 1000);
      queue.sweepTimer.unref();
    }
    return queue;
  }

  /** Declares a job type: its queue options, and (when this process works) its handler. */
  async register(jobType: JobType, handler: JobHandler, options: RegisterOptions = {}): Promise<void> {
    await this.defineQueue(jobType, options);
    if (!this.options.work) return;
    const workerId = await this.boss.work(
      jobType,
      { includeMetadata: true, batchSize: 1, localConcurrency: options.concurrency ?? 1, ...this.polling() },
      async ([job]: JobWithMetadata<QueuedJobData>[]) => this.take(job, handler),
    );
    this.workers.set(jobType, workerId);
  }

  /**
   * Hands a committed row to the queue and records the pg-boss id on it. Call it after
   * the transaction that created the row commits; a crash in between is repaired by the
   * recovery sweep.
   */
  async enqueue(job: JobRecord): Promise<JobRecord> {
    await this.ensureQueue(job.jobType);
    const data: QueuedJobData = { jobId: job.id };
    // A null answer means a job with this id is already queued: someone sent it first.
    await this.boss.send(job.jobType, data, { id: job.id });
    this.wake(job.jobType);
    await this.store.setImplementationId(job.id, job.id);
    return { ...job, implementationJobId: job.id };
  }

  /**
   * Runs `name` on `cron` (evaluated in `tz`, default UTC), sending `data` to the queue `name`.
   * One schedule per (name, `key`); scheduling the same pair again replaces it. pg-boss sends
   * one job per tick however many processes run schedules (one claim per pass, one job per slot).
   */
  async schedule(name: string, cron: string, data: Record<string, unknown> = {}, options: { tz?: string; key?: string } = {}): Promise<void> {
    await this.ensureQueue(name);
    await this.boss.schedule(name, cron, data, { ...(options.tz ? { tz: options.tz } : {}), ...(options.key ? { key: options.key } : {}) });
  }

  async unschedule(name: string, key?: string): Promise<void> {
    await this.boss.unschedule(name, key);
  }

  /** The schedules sending to the queue `name`. */
  async schedules(name: string): Promise<StoredSchedule[]> {
    const rows = await this.boss.getSchedules(name);
    return rows.map((row) => ({ key: row.key, cron: row.cron, timezone: row.timezone, data: (row.data ?? {}) as Record<string, unknown> }));
  }

  /**
   * Sends plain data to a queue of `work()` (no job row), e.g. an event for triggers. With `id`
   * (a uuid) a second send of the same id is dropped while pg-boss keeps the first job: null.
   */
  async send(queueName: string, data: Record<string, unknown>, options: { id?: string } = {}): Promise<string | null> {
    await this.ensureQueue(queueName);
    const id = await this.boss.send(queueName, data, options.id ? { id: options.id } : {});
    this.wake(queueName);
    return id;
  }

  /** Declares a queue of `work()` with its retry and lease options (without it, pg-boss's defaults). */
  async defineQueue(queueName: string, options: RegisterOptions = {}): Promise<void> {
    const queueOptions = {
      retryLimit: options.retryLimit ?? 2,
      retryDelay: options.retryDelaySeconds ?? 5,
      retryBackoff: true,
      ...(options.retryDelayMaxSeconds !== undefined ? { retryDelayMax: options.retryDelayMaxSeconds } : {}),
      expireInSeconds: options.expireInSeconds ?? 900,
      ...(options.heartbeatSeconds !== undefined ? { heartbeatSeconds: options.heartbeatSeconds } : {}),
      // A send NOTIFYs pg-boss's channel in its own statement: workers everywhere fetch at once.
      notify: this.instant,
    };
    // createQueue leaves an existing queue as it is, so the options are applied again.
    await this.boss.createQueue(queueName, queueOptions);
    await this.boss.updateQueue(queueName, queueOptions);
    this.queues.add(queueName);
  }

  /** A worker over a queue without job rows; a throw fails the attempt and pg-boss retries it. */
  async work<T extends object>(
    queueName: string,
    handler: (data: T, ctx: WorkContext) => Promise<void>,
    options: { concurrency?: number } = {},
  ): Promise<void> {
    await this.ensureQueue(queueName);
    const workerId = await this.boss.work(
      queueName,
      { includeMetadata: true, batchSize: 1, localConcurrency: options.concurrency ?? 1, ...this.polling() },
      async ([job]: JobWithMetadata<T>[]) => {
        await handler(job.data, { id: job.id, attempt: job.retryCount + 1, signal: job.signal, createdOn: job.createdOn });
      },
    );
    this.workers.set(queueName, workerId);
  }

  /**
   * Stops taking jobs and waits for running handlers up to `stopTimeoutMs`. pg-boss then
   * fails what is still running (it will be retried), and those rows go back to `queued`
   * (or `failed` when no retry is left).
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.sweepTimer);
    await this.sweeping;
    await this.boss.stop({ graceful: true, timeout: this.options.stopTimeoutMs ?? 30_000 });
    for (const { id, final } of this.running) {
      await this.store.markFailed(id, new Error('The worker stopped before the job finished.'), final).catch((error: unknown) => {
        this.logger.error({ err: error, jobId: id }, 'could not put back a job interrupted by shutdown');
      });
    }
    this.running.clear();
  }

  /** Recovery: sends rows that were never sent and settles rows whose job pg-boss gave up. */
  async sweep(): Promise<void> {
    if (this.stopped) return;
    this.sweeping ??= sweep({
      boss: this.boss,
      store: this.store,
      recoverAfterSeconds: this.options.recoverAfterSeconds ?? 10,
      enqueue: (job) => this.enqueue(job),
      logger: this.logger,
    }).finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  private async take(job: JobWithMetadata<QueuedJobData>, handler: JobHandler): Promise<void> {
    // pg-boss retries while retryCount < retryLimit, so this attempt is the last one.
    const attempt = { id: job.data.jobId, final: job.retryCount >= job.retryLimit };
    this.running.add(attempt);
    try {
      await runJob({ store: this.store, logger: this.logger, handler, job, final: attempt.final });
    } finally {
      this.running.delete(attempt);
    }
  }

  /**
   * The in-process half of instant pick-up: a worker of this process fetches now rather than
   * after its poll. Other processes' workers wake on pg-boss's NOTIFY; the job is committed by
   * then (the send is its own statement).
   */
  private wake(queueName: string): void {
    const workerId = this.workers.get(queueName);
    if (workerId && this.instant && !this.stopped) this.boss.notifyWorker(workerId);
  }

  private async ensureQueue(name: string): Promise<void> {
    if (this.queues.has(name)) return;
    await this.boss.createQueue(name, { notify: this.instant });
    // A queue created before notices existed keeps its other options and gains `notify`.
    await this.boss.updateQueue(name, { notify: this.instant });
    this.queues.add(name);
  }

  /** The fallback poll, the same whether or not NOTIFY is available (pg-boss keeps two). */
  private get instant(): boolean {
    return this.options.instantPickup !== false;
  }

  private polling(): { pollingIntervalSeconds: number; notifyPollingIntervalSeconds: number } {
    const seconds = this.options.pollingIntervalSeconds ?? DEFAULT_FALLBACK_POLL_SECONDS;
    return { pollingIntervalSeconds: seconds, notifyPollingIntervalSeconds: seconds };
  }
}
