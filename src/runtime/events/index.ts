import type { Db } from '../../storage/db.ts';
import type { JobLogger, JobQueue } from '../../jobs/queue.ts';
import type { DeploymentRegistry } from '../registry.ts';
import type { AfterCommit } from '../http/after-commit.ts';
import { EVENT_QUEUE, EventDispatcher, type DeliveryJob } from './dispatcher.ts';
import { deliver } from './delivery.ts';
import { MAIL_QUEUE, sendQueuedMail, type MailDeps, type MailJob } from './mail.ts';
import { SCHEDULE_QUEUE, Schedules, type ScheduleJob } from './schedules.ts';
import type { EventRunner } from './triggers.ts';

export { EVENT_QUEUE, SCHEDULE_QUEUE, EventDispatcher, Schedules };
export { matchesPattern, newestActiveVersions, type AppEvent, type EventRunner } from './triggers.ts';

export interface EventsOptions {
  db: Db;
  queue: JobQueue;
  registry: DeploymentRegistry;
  afterCommit: AfterCommit;
  runner: EventRunner;
  /** Whether this process takes event and schedule jobs (roles `all` and `worker`). */
  work: boolean;
  logger?: JobLogger;
  /** How often a working process looks for rows no commit announced, e.g. of a crashed process (default 5 s). */
  pollSeconds?: number;
  /** How often a working process checks the schedules of every served application (default 60 s). */
  reconcileSeconds?: number;
  /** Dispatched events are forgotten after this many days (default 7). */
  keepDays?: number;
  /** Deliveries run at once in this process (default 4). */
  concurrency?: number;
  /** Retries of a delivery after an infrastructure error (default 5; backoff from 2 s). */
  retryLimit?: number;
  retryDelaySeconds?: number;
  /** How mails of `email.send` are sent (working processes); without it they stay in the outbox unsent. */
  mail?: Omit<MailDeps, 'db' | 'logger'>;
}

/** Event triggers and schedules of generated applications, started in every process. */
export interface Events {
  dispatcher: EventDispatcher;
  schedules: Schedules;
  stop(): Promise<void>;
}

const silent: JobLogger = { info: () => {}, warn: () => {}, error: () => {} };

/**
 * Every process dispatches the outbox rows its own commits announce. Working processes also
 * take the deliveries and schedule ticks, poll the outbox for rows nobody dispatched, and
 * keep the schedules in line with what is served.
 */
export async function startEvents(options: EventsOptions): Promise<Events> {
  const { db, queue, registry, runner } = options;
  const logger = options.logger ?? silent;
  const dispatcher = new EventDispatcher(db, queue, registry, logger);
  const schedules = new Schedules(db, queue, registry, runner, logger);
  const retry = { retryLimit: options.retryLimit ?? 5, retryDelaySeconds: options.retryDelaySeconds ?? 2, retryDelayMaxSeconds: 300 };
  // Runs are bounded by the action's wall time (30 s), so a lease of two minutes is ample.
  await queue.defineQueue(EVENT_QUEUE, { ...retry, expireInSeconds: 120 });
  await queue.defineQueue(MAIL_QUEUE, { ...retry, expireInSeconds: 120 });
  await queue.defineQueue(SCHEDULE_QUEUE, { retryLimit: 2, retryDelaySeconds: 5, expireInSeconds: 120 });
  options.afterCommit.onCommitted(() => dispatcher.kick());

  const timers: NodeJS.Timeout[] = [];
  if (options.work) {
    await queue.work<DeliveryJob>(EVENT_QUEUE, (job, ctx) => deliver({ db, registry, runner, logger }, job, ctx), { concurrency: options.concurrency ?? 4 });
    const mail = options.mail;
    if (mail) await queue.work<MailJob>(MAIL_QUEUE, (job) => sendQueuedMail({ ...mail, db, logger }, job));
    await queue.work<ScheduleJob>(SCHEDULE_QUEUE, (job, ctx) => schedules.fire(job, ctx));
    const every = (seconds: number, task: () => Promise<unknown>) => {
      const timer = setInterval(() => void task().catch((error: unknown) => logger.error({ err: error }, 'event housekeeping failed')), seconds * 1000);
      timer.unref();
      timers.push(timer);
    };
    every(options.pollSeconds ?? 5, () => dispatcher.dispatch());
    every(options.reconcileSeconds ?? 60, () => schedules.syncAll());
    every(3600, () => dispatcher.purge(options.keepDays ?? 7));
    await schedules.syncAll().catch((error: unknown) => logger.error({ err: error }, 'could not sync schedules at start'));
    dispatcher.kick();
  }
  return {
    dispatcher,
    schedules,
    stop: async () => {
      for (const timer of timers) clearInterval(timer);
      await dispatcher.stop();
    },
  };
}
