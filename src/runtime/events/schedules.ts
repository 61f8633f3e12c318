import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../../storage/db.ts';
import type { JobLogger, JobQueue, StoredSchedule, WorkContext } from '../../jobs/queue.ts';
import type { DeploymentRegistry } from '../registry.ts';
import { SCHEDULE_EVENT, findEventTrigger, handlingVersion, newestActiveVersions, scheduleTriggers, type EventRunner } from './triggers.ts';

/** The queue scheduled ticks arrive on. */
export const SCHEDULE_QUEUE = 'app-schedule';

/** What a tick carries: the trigger it fires, in the version it was scheduled for. */
export interface ScheduleJob {
  applicationId: string;
  serverVersion: string;
  triggerId: string;
}

/** One pg-boss schedule per (application, trigger); pg-boss keys allow `[\w.\-/]`, trigger ids have `:`. */
function scheduleKey(applicationId: string, triggerId: string): string {
  return `${applicationId}/${Buffer.from(triggerId).toString('base64url')}`;
}

function applicationOf(key: string): string {
  return key.slice(0, key.indexOf('/'));
}

/**
 * Schedule triggers (`eventName: 'schedule'`, `payload.cron`, optional `payload.timezone`) as
 * pg-boss schedules. pg-boss evaluates them in every process that runs schedules, but one claim
 * per pass and one job per tick slot mean one job per tick however many processes run.
 *
 * Which version's schedules run: only those of the version that handles the application's
 * events, its newest active deployment (newest by publication, so a rollback hands them back).
 * Several served versions would otherwise fire the same schedule once each. `sync` makes the
 * stored schedules match that version after each publish and unpublish; a tick checks again
 * when it fires, so a schedule left behind by a crash or a race never runs a version that no
 * longer handles events (it resyncs instead).
 */
export class Schedules {
  constructor(
    private readonly db: Db,
    private readonly queue: JobQueue,
    private readonly registry: DeploymentRegistry,
    private readonly runner: EventRunner,
    private readonly logger: JobLogger,
  ) {}

  /** Makes the stored schedules of one application those of its handling version (none if unserved). */
  async sync(applicationId: string): Promise<void> {
    await this.reconcile([applicationId], await this.queue.schedules(SCHEDULE_QUEUE));
  }

  /** Syncs every application that is served or still has schedules (at start and periodically). */
  async syncAll(): Promise<void> {
    const stored = await this.queue.schedules(SCHEDULE_QUEUE);
    const served = await this.db.kysely.selectFrom('appbuilder.deployments').select('application_id').where('state', '=', 'active').distinct().execute();
    const ids = new Set([...served.map((row) => row.application_id), ...stored.map((s) => applicationOf(s.key))]);
    await this.reconcile([...ids], stored);
  }

  /** A tick: runs the trigger's action as the system with `event.payload` = trigger payload + `firedAt`. */
  async fire(job: ScheduleJob, ctx: WorkContext): Promise<void> {
    const served = await handlingVersion(this.db, this.registry, job.applicationId);
    const trigger = served?.compiled.serverVersion === job.serverVersion ? findEventTrigger(served.compiled.definition, job.triggerId) : undefined;
    if (!served || !trigger || trigger.trigger.eventName !== SCHEDULE_EVENT) {
      this.logger.info({ ...job }, 'stale schedule skipped; resyncing the application');
      await this.sync(job.applicationId);
      return;
    }
    const payload = { ...trigger.trigger.payload, firedAt: ctx.createdOn.toISOString() };
    const run = await this.runner.runEventTrigger(served, trigger, { name: SCHEDULE_EVENT, payload });
    const details = { ...job, runId: run.id, firedAt: payload.firedAt };
    if (run.status === 'failed') this.logger.warn(details, 'schedule trigger failed (run recorded)');
    else this.logger.info(details, 'schedule trigger ran');
  }

  private async reconcile(applicationIds: string[], stored: StoredSchedule[]): Promise<void> {
    const versions = await newestActiveVersions(this.db, applicationIds);
    for (const applicationId of applicationIds) {
      const version = versions.get(applicationId);
      const served = version ? await this.registry.resolve(applicationId, version) : null;
      const wanted = new Map<string, { cron: string; timezone: string; data: ScheduleJob }>();
      for (const trigger of served ? scheduleTriggers(served.compiled.definition) : []) {
        const { id, payload } = trigger.trigger;
        const timezone = typeof payload.timezone === 'string' && payload.timezone ? payload.timezone : 'UTC';
        wanted.set(scheduleKey(applicationId, id), { cron: String(payload.cron), timezone, data: { applicationId, serverVersion: version!, triggerId: id } });
      }
      const existing = stored.filter((s) => applicationOf(s.key) === applicationId);
      for (const [key, want] of wanted) {
        const have = existing.find((s) => s.key === key);
        if (have && have.cron === want.cron && have.timezone === want.timezone && isDeepStrictEqual(have.data, want.data)) continue;
        try {
          await this.queue.schedule(SCHEDULE_QUEUE, want.cron, { ...want.data }, { tz: want.timezone, key });
        } catch (error) {
          // A cron or time zone pg-boss refuses: the other schedules still go in.
          this.logger.error({ err: error, ...want.data, cron: want.cron }, 'schedule refused');
        }
      }
      for (const have of existing) if (!wanted.has(have.key)) await this.queue.unschedule(SCHEDULE_QUEUE, have.key);
    }
  }
}
