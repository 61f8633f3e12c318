// Retention of the request log with a shortened retention (2 days; PGlite, and PostgreSQL when it
// answers): rows written through the real writer for five and three days ago, yesterday and now
// land in day partitions; the sweep drops the two expired partitions whole (the tables are gone,
// no row is deleted one by one) and the logs API lists only the recent rows.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayKey, listDayPartitions } from '../../src/monitoring/partitions.ts';
import { requestLogWriter, type RequestLogEntry } from '../../src/monitoring/request-log.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';

const DAY = 86_400_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(await availableDrivers())('request log retention on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: AppReply;

  const entry = (at: Date, route: string): RequestLogEntry => ({
    at,
    applicationId: app.id,
    serverVersion: app.serverVersion,
    method: 'GET',
    route,
    status: 200,
    durationMs: 1.5,
    userId: null,
    bytes: 10,
    errorType: null,
  });
  const exists = async (key: string) =>
    (await sql<{ t: string | null }>`select to_regclass(${`appbuilder.request_log_p${key}`})::text as t`.execute(t.platform.db.kysely)).rows[0].t !== null;

  beforeAll(async () => {
    t = await startTestPlatform(driver, { requestLogRetentionDays: 2 });
    tenant = await createTenant(t, 'Retained');
    app = await createTodoApp(tenant);
  }, 120_000);
  afterAll(() => t?.close());

  it("creates today's and tomorrow's partitions at start", async () => {
    const tomorrow = dayKey(new Date(Date.now() + DAY));
    for (let i = 0; i < 100 && !(await listDayPartitions(t.platform.db.kysely)).includes(tomorrow); i++) await sleep(50);
    expect(await listDayPartitions(t.platform.db.kysely)).toEqual(expect.arrayContaining([dayKey(new Date()), tomorrow]));
  });

  it('drops the partitions older than the retention, and with them exactly their rows', async () => {
    const now = Date.now();
    const old = [new Date(now - 5 * DAY), new Date(now - 3 * DAY)];
    const recent = [new Date(now - 1 * DAY), new Date(now - 1000)];
    const writer = requestLogWriter(t.platform.db);
    old.forEach((at, i) => writer.add(entry(at, `/old/${i}`)));
    recent.forEach((at, i) => writer.add(entry(at, `/recent/${i}`)));
    await writer.flush();

    const before = await tenant.api.get<{ items: Array<{ route: string }> }>(`/v1/applications/${app.id}/logs`);
    expect(before.body.items.map((r) => r.route)).toEqual(['/recent/1', '/recent/0', '/old/1', '/old/0']);
    for (const at of [...old, ...recent]) expect(await exists(dayKey(at))).toBe(true);

    const dropped = await t.platform.services.monitoring.sweepRequestLog();
    expect(dropped).toEqual(old.map(dayKey));
    for (const at of old) expect(await exists(dayKey(at))).toBe(false);
    for (const at of recent) expect(await exists(dayKey(at))).toBe(true);

    const after = await tenant.api.get<{ items: Array<{ route: string }> }>(`/v1/applications/${app.id}/logs`);
    expect(after.body.items.map((r) => r.route)).toEqual(['/recent/1', '/recent/0']);
    // A second sweep has nothing left to drop.
    expect(await t.platform.services.monitoring.sweepRequestLog()).toEqual([]);
  });

  it('writes a row again after its partition was dropped (the writer makes it anew)', async () => {
    const writer = requestLogWriter(t.platform.db);
    const late = new Date(Date.now() - 5 * DAY);
    writer.add(entry(late, '/late'));
    await writer.flush();
    expect(await exists(dayKey(late))).toBe(true);
    const page = await tenant.api.get<{ items: Array<{ route: string }> }>(`/v1/applications/${app.id}/logs?route=/late`);
    expect(page.body.items).toHaveLength(1);
  });
});
