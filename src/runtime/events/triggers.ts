import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../storage/db.ts';
import type { AppDefinition, EventTrigger, Trigger } from '../../definition/schema.ts';
import type { DeploymentRegistry, ServedApp } from '../registry.ts';
import type { EventRunner, TriggerEvent } from '../runs/runner.ts';

/** The event a trigger's action sees as `event` (`previous` on `{Model}.updated`). */
export type AppEvent = TriggerEvent;
export type { EventRunner };

/** The name of schedule triggers; events of that name are never raised by data or `event.emit`. */
export const SCHEDULE_EVENT = 'schedule';

export type EventTriggerOf = Trigger & { trigger: EventTrigger };

function isEventTrigger(trigger: Trigger): trigger is EventTriggerOf {
  return trigger.trigger.type === 'event';
}

/** Every member of `pattern` is in `payload` with an equal (deep, strict) value; `{}` matches all. */
export function matchesPattern(pattern: Record<string, unknown>, payload: Record<string, unknown>): boolean {
  return Object.entries(pattern).every(([key, value]) => Object.hasOwn(payload, key) && isDeepStrictEqual(payload[key], value));
}

/** The event triggers of `definition` that an event fires: same name, payload matching the pattern. */
export function triggersFor(definition: AppDefinition, event: AppEvent): EventTriggerOf[] {
  if (event.name === SCHEDULE_EVENT) return [];
  return definition.triggers.filter(
    (t): t is EventTriggerOf => isEventTrigger(t) && t.trigger.eventName === event.name && matchesPattern(t.trigger.payload ?? {}, event.payload),
  );
}

/** The schedule triggers of `definition`: `eventName: 'schedule'` with a `payload.cron`. */
export function scheduleTriggers(definition: AppDefinition): EventTriggerOf[] {
  return definition.triggers.filter(
    (t): t is EventTriggerOf => isEventTrigger(t) && t.trigger.eventName === SCHEDULE_EVENT && typeof t.trigger.payload?.cron === 'string',
  );
}

export function findEventTrigger(definition: AppDefinition, triggerId: string): EventTriggerOf | undefined {
  return definition.triggers.find((t): t is EventTriggerOf => isEventTrigger(t) && t.trigger.id === triggerId);
}

/**
 * The version whose event triggers and schedules run for each application: its newest active
 * deployment, newest by publication (so publishing an older version, a rollback, hands events
 * and schedules back to it). Several served versions never handle one event twice.
 */
export async function newestActiveVersions(db: Db, applicationIds: readonly string[]): Promise<Map<string, string>> {
  const newest = new Map<string, string>();
  if (applicationIds.length === 0) return newest;
  const rows = await db.kysely
    .selectFrom('appbuilder.deployments')
    .select(['application_id', 'server_version'])
    .where('application_id', 'in', [...new Set(applicationIds)])
    .where('state', '=', 'active')
    .orderBy(sql`published_at desc nulls last`)
    .orderBy('server_version', 'desc')
    .execute();
  for (const row of rows) if (!newest.has(row.application_id)) newest.set(row.application_id, row.server_version);
  return newest;
}

/** The same version as newestActiveVersions, as an SQL subquery for the application id `applicationId`. */
export function newestActiveVersionSql(applicationId: RawBuilder<unknown>): RawBuilder<string | null> {
  return sql<string | null>`(select d.server_version from appbuilder.deployments d
    where d.application_id = ${applicationId} and d.state = 'active'
    order by d.published_at desc nulls last, d.server_version desc limit 1)`;
}

/** The served version that handles an application's events and schedules now, or null. */
export async function handlingVersion(db: Db, registry: DeploymentRegistry, applicationId: string): Promise<ServedApp | null> {
  const version = (await newestActiveVersions(db, [applicationId])).get(applicationId);
  return version ? registry.resolve(applicationId, version) : null;
}

/** A uuid fixed by its parts (sha-256, version 8): the job id of one delivery, so a resend is one job. */
export function uuidFrom(...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
