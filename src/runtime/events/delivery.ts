import type { Db } from '../../storage/db.ts';
import type { JobLogger, WorkContext } from '../../jobs/queue.ts';
import type { DeploymentRegistry } from '../registry.ts';
import type { DeliveryJob } from './dispatcher.ts';
import { withoutWriteOnly } from '../data/write-only.ts';
import { findEventTrigger, handlingVersion, matchesPattern, type AppEvent, type EventRunner } from './triggers.ts';

/**
 * One delivery: runs one trigger's action for one event, as the system. A failing action is
 * recorded as a failed run and the job succeeds (no retry: the action would fail the same way,
 * and other events never wait for it). An infrastructure error throws, and pg-boss retries the
 * job with backoff.
 */
export async function deliver(
  deps: { db: Db; registry: DeploymentRegistry; runner: EventRunner; logger: JobLogger },
  job: DeliveryJob,
  ctx: WorkContext,
): Promise<void> {
  const row = await deps.db.kysely
    .selectFrom('appbuilder.events')
    .select(['name', 'payload', 'previous'])
    .where('id', '=', job.eventId)
    .executeTakeFirst();
  // The application was deleted since (its events went with it).
  if (!row) return;
  const event: AppEvent = { name: row.name, payload: row.payload, ...(row.previous ? { previous: row.previous } : {}) };
  // The version chosen at dispatch, or, if it stopped being served since, the one handling events now.
  const served =
    (await deps.registry.resolve(job.applicationId, job.serverVersion)) ?? (await handlingVersion(deps.db, deps.registry, job.applicationId));
  const trigger = served && findEventTrigger(served.compiled.definition, job.triggerId);
  if (!served || !trigger || trigger.trigger.eventName !== event.name || !matchesPattern(trigger.trigger.payload ?? {}, event.payload)) {
    deps.logger.info({ eventId: job.eventId, triggerId: job.triggerId }, 'event dropped: no served version has this trigger any more');
    return;
  }
  // The action sees the record as a read would: without its write-only fields.
  const seen: AppEvent = { ...event, payload: withoutWriteOnly(served.compiled, event.name, event.payload), ...(event.previous ? { previous: withoutWriteOnly(served.compiled, event.name, event.previous) } : {}) };
  const run = await deps.runner.runEventTrigger(served, trigger, seen);
  const details = { eventId: job.eventId, event: event.name, triggerId: job.triggerId, runId: run.id, attempt: ctx.attempt };
  if (run.status === 'failed') deps.logger.warn(details, 'event trigger failed (run recorded)');
  else deps.logger.info(details, 'event trigger ran');
}
