import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchesPattern } from '../../src/runtime/events/index.ts';
import { availableDrivers } from '../support/databases.ts';
import type { TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply } from '../support/tenant.ts';
import { TICK_TRIGGER, awayFromMinuteEnd, scheduleScode, storedSchedules, ticks } from './schedule-app.ts';
import { publish, runsOf, startEventsPlatform, waitFor } from './support.ts';

describe('payload patterns of event triggers', () => {
  it('match when every member of the pattern is in the payload with an equal value', () => {
    const payload = { id: 'a', status: 'open', tags: ['x', 'y'], address: { city: 'Lyon', zip: '69001' }, count: 2 };
    expect(matchesPattern({}, payload)).toBe(true);
    expect(matchesPattern({ status: 'open' }, payload)).toBe(true);
    expect(matchesPattern({ status: 'open', count: 2, tags: ['x', 'y'] }, payload)).toBe(true);
    expect(matchesPattern({ address: { city: 'Lyon', zip: '69001' } }, payload)).toBe(true);
    expect(matchesPattern({ status: 'done' }, payload)).toBe(false);
    expect(matchesPattern({ count: '2' }, payload)).toBe(false);
    expect(matchesPattern({ tags: ['y', 'x'] }, payload)).toBe(false);
    expect(matchesPattern({ address: { city: 'Lyon' } }, payload)).toBe(false);
    expect(matchesPattern({ missing: null }, payload)).toBe(false);
  });
});

const drivers = await availableDrivers();

describe.each(drivers)('schedule triggers (%s)', (driver) => {
  let t: TestPlatform;

  beforeAll(async () => {
    t = await startEventsPlatform(driver);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('fire for the newest published version, follow publish and unpublish, and a tick left over runs nothing', async () => {
    const tenant = await createTenant(t, 'Schedules');
    const created = await createTodoApp(tenant, scheduleScode());
    const applicationId = created.id;
    const db = t.database.db;
    const schedule = (serverVersion: string, cron: string) => ({
      key: expect.stringMatching(new RegExp(`^${applicationId}/`)),
      cron,
      timezone: 'Europe/Paris',
      data: { applicationId, serverVersion, triggerId: TICK_TRIGGER },
    });

    await awayFromMinuteEnd();
    const v1 = (await publish(tenant, applicationId)).serverVersion;
    expect(await storedSchedules(db)).toEqual([schedule(v1, '* * * * *')]);
    // The current minute's tick is due at once.
    const fired = await waitFor(() => ticks(t, tenant, { id: applicationId, serverVersion: v1 }), (notes) => notes.length > 0, 30_000, 'the first tick');
    const [run] = await waitFor(() => runsOf(db, applicationId), (runs) => runs.length > 0);
    expect(run).toMatchObject({ trigger_id: TICK_TRIGGER, status: 'succeeded', error: null });
    expect(run.input.event).toEqual({ name: 'schedule', payload: { cron: '* * * * *', timezone: 'Europe/Paris', firedAt: fired[0] } });
    expect(Math.abs(Date.parse(fired[0]) - Date.now())).toBeLessThan(60_000);

    // A new version with another cron takes the schedule over.
    const changed = await tenant.api.request<AppReply>('PUT', `/v1/applications/${applicationId}/scode`, { body: scheduleScode('*/5 * * * *') });
    expect(changed.status).toBe(200);
    const v2 = (await publish(tenant, applicationId, changed.body.serverVersion)).serverVersion;
    expect(v2).not.toBe(v1);
    expect(await storedSchedules(db)).toEqual([schedule(v2, '*/5 * * * *')]);

    // Unpublishing it hands the schedule back to the version still served; unpublishing all removes it.
    expect((await tenant.api.post(`/v1/applications/${applicationId}/unpublish`, { serverVersion: v2 })).status).toBe(200);
    expect(await storedSchedules(db)).toEqual([schedule(v1, '* * * * *')]);
    expect((await tenant.api.post(`/v1/applications/${applicationId}/unpublish`, {})).status).toBe(200);
    expect(await storedSchedules(db)).toEqual([]);

    // A tick already on its way when the version stopped being served runs nothing.
    const before = (await runsOf(db, applicationId)).length;
    const jobId = await t.platform.services.queue.send('app-schedule', { applicationId, serverVersion: v1, triggerId: TICK_TRIGGER });
    await waitFor(
      async () => (await sql<{ state: string }>`select state from pgboss.job where name = 'app-schedule' and id = ${jobId}`.execute(db.kysely)).rows[0]?.state,
      (state) => state === 'completed',
      30_000,
      'the left-over tick',
    );
    expect((await runsOf(db, applicationId)).length).toBe(before);
    expect(await storedSchedules(db)).toEqual([]);
  });
});
