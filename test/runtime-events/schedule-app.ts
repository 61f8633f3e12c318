/** An app whose schedule trigger writes one `Tick` row per tick (note = the tick's firedAt). */
import { sql } from 'kysely';
import type { Db } from '../../src/storage/db.ts';
import { todoScode } from '../support/examples.ts';
import type { TestPlatform } from '../support/platform.ts';
import type { Tenant } from '../support/tenant.ts';
import { callApp, sleep } from './support.ts';

export const TICK_TRIGGER = 'urn:svc:trigger:every-minute';

export function scheduleScode(cron = '* * * * *'): unknown {
  const scode = todoScode() as unknown as { models: unknown[]; actions: unknown[]; triggers: unknown[] };
  scode.models.push({
    id: 'urn:svc:model:tick',
    name: 'Tick',
    accessControl: { rules: [], defaultAccess: 'deny' },
    fields: [{ id: 'urn:svc:edge:tick-note', name: 'note', relationshipOwner: true, min: 1, max: 1, to: 'p_TEXT', accessControl: { rules: [] } }],
  });
  scode.actions.push({
    id: 'urn:svc:action:tick',
    startEffectId: 'create',
    effects: [{ actionEffectId: 'create', effect: 'data.create', params: { model: 'Tick' }, bindParams: { values: "{'note': event.payload.firedAt}" } }],
  });
  scode.triggers.push({
    trigger: { id: TICK_TRIGGER, type: 'event', eventName: 'schedule', payload: { cron, timezone: 'Europe/Paris' } },
    actionId: 'urn:svc:action:tick',
    initialState: {},
    validation: [],
  });
  return scode;
}

/** The ticks written so far (their firedAt), read as the app's administrator. */
export async function ticks(t: TestPlatform, tenant: Tenant, app: { id: string; serverVersion: string }): Promise<string[]> {
  const reply = await callApp<{ items: Array<{ note: string }> }>(t, tenant, app, 'GET', '/ticks?limit=1000', 'admin');
  if (reply.status !== 200) throw new Error(`GET /ticks answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return reply.body.items.map((item) => item.note).sort();
}

/** Ticks counted per minute of their firedAt (`2026-11-23T03:21`). */
export function perMinute(firedAt: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const at of firedAt) counts[at.slice(0, 16)] = (counts[at.slice(0, 16)] ?? 0) + 1;
  return counts;
}

/** The pg-boss schedules of the app-schedule queue: key, cron, zone and what a tick carries. */
export async function storedSchedules(db: Db): Promise<Array<{ key: string; cron: string; timezone: string; data: Record<string, unknown> }>> {
  const result = await sql<{ key: string; cron: string; timezone: string; data: Record<string, unknown> }>`
    select key, cron, timezone, data from pgboss.schedule where name = 'app-schedule' order by key`.execute(db.kysely);
  return result.rows;
}

/** Waits out the last seconds of a minute, so a tick sent now is not filed under the next one. */
export async function awayFromMinuteEnd(seconds = 8): Promise<void> {
  const into = (Date.now() % 60_000) / 1000;
  if (into > 60 - seconds) await sleep((60 - into + 1) * 1000);
}

/** Milliseconds until `extra` seconds after the next minute boundary. */
export function untilAfterNextMinute(extra: number): number {
  return 60_000 - (Date.now() % 60_000) + extra * 1000;
}
