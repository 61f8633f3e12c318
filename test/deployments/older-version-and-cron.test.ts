/**
 * Known gaps of issue 17, one test each:
 * - publishing an older version converts a column back only after the same dry run as a forward
 *   change: rows that would not convert → 409 naming the field and the value, nothing changes;
 * - no `migration` job is reported: a version's migration runs in its `deployment` job and shows
 *   in `status.migrations`;
 * - a schedule trigger's cron and time zone are checked at save time by the scheduler's parser:
 *   what the save refuses (409 naming the trigger's path) is exactly what pg-boss refuses.
 */
import { PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnNameForField } from '../../src/definition/naming.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { todoScode } from '../support/examples.ts';
import { scheduleScode } from '../runtime-events/schedule-app.ts';
import { publishAndWait, tableColumns, versionPath } from './support.ts';

const TODO = 'urn:svc:model:todo';
const DESCRIPTION = 'urn:svc:edge:todo-description';

interface Problem {
  detail: string;
  errors: Array<{ path: string; message: string }>;
}

interface Status {
  jobs: Array<{ jobType: string; status: string }>;
  deployments: Array<{ serverVersion: string; state: string }>;
  /** Each applied migration with its statements' summary lines. */
  migrations: Array<{ serverVersion: string; statements: string[] }>;
}

/** The to-do example with the description typed `to`. */
function withDescription(to: string): ReturnType<typeof todoScode> {
  const scode = todoScode();
  const model = scode.models.find((m) => m.id === TODO) as { fields: Array<{ id: string; to: string }> };
  model.fields.find((f) => f.id === DESCRIPTION)!.to = to;
  return scode;
}

describe.each(await availableDrivers())('publishing an older version, and schedules at save time (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: AppReply;
  let v1: string;
  let v2: string;
  let todoId: string;

  const columnType = async () => (await tableColumns(t, app.id, TODO)).get(columnNameForField(DESCRIPTION));
  const admin = (method: string, path: string, body?: unknown) => tenant.api.request<Record<string, unknown>>(method, path, body === undefined ? {} : { body });
  const status = async () => (await tenant.api.get<AppReply & { status: Status }>(`/v1/applications/${app.id}`)).body.status;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Rollback');
    // v1 stores the description as a number; v2 as text (number → text always converts).
    app = await createTodoApp(tenant, withDescription('p_NUMBER'));
    v1 = app.serverVersion;
    await publishAndWait(tenant, app.id);
    const user = await admin('POST', `${versionPath(t, app.id, v1)}/users`, { name: 'Ann', email: 'ann@example.com' });
    const todo = await admin('POST', `${versionPath(t, app.id, v1)}/toDos`, { title: 'Count', description: 42, user: user.body.id });
    expect(todo.status).toBe(201);
    todoId = todo.body.id as string;
    const replaced = await tenant.api.put<AppReply>(`/v1/applications/${app.id}/scode`, withDescription('p_TEXT'));
    expect(replaced.status).toBe(200);
    v2 = replaced.body.serverVersion;
    await publishAndWait(tenant, app.id, v2);
  }, 180_000);

  afterAll(async () => {
    await t?.close();
  });

  it('refuses to convert a column back when stored rows would not convert; the older version publishes once they do', async () => {
    expect(await columnType()).toBe('text');
    expect((await admin('PATCH', `${versionPath(t, app.id, v2)}/toDos/${todoId}`, { description: 'abc' })).status).toBe(200);
    const jobsBefore = (await status()).jobs.length;

    const refused = await tenant.api.post<Problem>(`/v1/applications/${app.id}/publish`, { serverVersion: v1 });
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body.detail).toContain('ToDo.description');
    expect(refused.body.errors).toEqual([{ path: '/models/0/fields/1/to', message: expect.stringContaining('"abc"') }]);
    // Nothing queued, nothing converted, the current version still reads the text.
    expect((await status()).jobs).toHaveLength(jobsBefore);
    expect(await columnType()).toBe('text');
    expect((await admin('GET', `${versionPath(t, app.id, v2)}/toDos/${todoId}`)).body).toMatchObject({ description: 'abc' });

    expect((await admin('PATCH', `${versionPath(t, app.id, v2)}/toDos/${todoId}`, { description: '7' })).status).toBe(200);
    await publishAndWait(tenant, app.id, v1);
    expect(await columnType()).toBe('double precision');
    expect((await admin('GET', `${versionPath(t, app.id, v1)}/toDos/${todoId}`)).body).toMatchObject({ description: 7 });
  });

  it('reports no migration job: each migration ran in its deployment job and is listed in status.migrations', async () => {
    const { jobs, migrations } = await status();
    expect(new Set(jobs.map((j) => j.jobType))).toEqual(new Set(['deployment']));
    expect(jobs.every((j) => j.status === 'succeeded')).toBe(true);
    const conversions = migrations.flatMap((m) => m.statements.filter((line) => line.startsWith('convert ')).map((line) => `${m.serverVersion}: ${line}`));
    expect(conversions.sort()).toEqual(
      [`${v2}: convert ToDo.description from double precision to text`, `${v1}: convert ToDo.description from text to double precision`].sort(),
    );
    // Listed once: a deployment job's metadata only counts its statements.
    expect((jobs as unknown as Array<{ metadata: Record<string, unknown> }>).every((j) => typeof j.metadata.migrationStatements === 'number')).toBe(true);
    expect(JSON.stringify(jobs)).not.toContain('convert ToDo.description');
  });

  // The scheduler's own verdict: pg-boss's previewSchedule parses as schedule() does (no connection needed).
  const scheduler = new PgBoss({ connectionString: 'postgres://scheduler-verdict-only@127.0.0.1:1/none' });
  const accepted = (cron: string, tz?: string) => {
    try {
      scheduler.previewSchedule(cron, { count: 1, ...(tz ? { tz } : {}) });
      return true;
    } catch {
      return false;
    }
  };
  const cases: Array<[string, string, string | undefined]> = [
    ['a minute out of range', '61 * * * *', undefined],
    ['an hour out of range', '0 25 * * *', undefined],
    ['a day February never has', '0 0 31 2 *', undefined],
    ['a word for a field', 'at noon * * *', undefined],
    ['an unknown time zone', '0 8 * * *', 'Mars/Olympus'],
    ['a valid expression with seconds', '*/30 * * * * *', 'Europe/Paris'],
    ['a valid weekday schedule', '0 9 * * 1-5', 'America/New_York'],
  ];

  it.each(cases)('a schedule with %s is saved exactly when the scheduler accepts it', async (name, cron, timezone) => {
    // The oracle is not vacuous: it refuses the broken cases and accepts the valid ones.
    expect(accepted(cron, timezone)).toBe(name.startsWith('a valid'));
    const scode = scheduleScode(cron) as { triggers: Array<{ trigger: { payload: Record<string, unknown> } }> };
    const payload = scode.triggers[scode.triggers.length - 1].trigger.payload;
    if (timezone) payload.timezone = timezone;
    else delete payload.timezone;
    const before = (await tenant.api.get<AppReply>(`/v1/applications/${app.id}`)).body.serverVersion;
    const reply = await tenant.api.put<Problem & AppReply>(`/v1/applications/${app.id}/scode`, scode);
    const path = `/triggers/${scode.triggers.length - 1}/trigger/payload/${cron.startsWith('0 8 ') ? 'timezone' : 'cron'}`;
    if (accepted(cron, timezone)) {
      expect(reply.status, reply.text).toBe(200);
      return;
    }
    expect(reply.status, reply.text).toBe(409);
    expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(reply.body.errors).toContainEqual({ path, message: expect.stringContaining(timezone ?? cron) });
    expect((await tenant.api.get<AppReply>(`/v1/applications/${app.id}`)).body.serverVersion).toBe(before);
  });
});
