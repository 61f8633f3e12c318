// `POST /{resource}/import` raises what single creates raise, on PGlite and PostgreSQL: one
// realtime `create` per imported row, announced after the commit, and one run of an event trigger
// on `ToDo.created` per row; an import refused as a whole (onError=abort) announces and runs nothing,
// and with onError=skip only the rows kept are announced.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import type { TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { SseClient, until } from '../realtime/clients.ts';
import { eventsSettled, publish, runsOf, startEventsPlatform, waitFor } from '../runtime-events/support.ts';
import { ServedApi, todoScodeWithoutEvents, type Rec } from './served-app.ts';

/** The to-do example with one event trigger: every `ToDo.created` runs `seen` (it sets a state value). */
function scodeWithCreateTrigger(): unknown {
  const scode = todoScodeWithoutEvents() as unknown as { actions: unknown[]; triggers: unknown[] };
  scode.actions.push({
    id: 'urn:svc:action:seen',
    startEffectId: 'note',
    effects: [{ actionEffectId: 'note', effect: 'flow.set', params: { name: 'seen', value: null }, bindParams: { value: 'event.payload.title' } }],
  });
  scode.triggers.push({ trigger: { id: 'urn:svc:trigger:on-created', type: 'event', eventName: 'ToDo.created', payload: {} }, actionId: 'urn:svc:action:seen', initialState: {}, validation: [] });
  return scode;
}

describe.each(await availableDrivers())('import events on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let ann: { token: string; user: Rec };
  const open: SseClient[] = [];

  const importNdjson = async (rows: unknown[], query = '') => {
    const response = await fetch(`${api.base}/toDos/import${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey!, 'content-type': 'application/x-ndjson' },
      body: rows.map((row) => JSON.stringify(row)).join('\n'),
    });
    return { status: response.status, body: (await response.json()) as { status?: string; models?: Array<{ imported: number }> } };
  };
  const createdRuns = async () => (await runsOf(t.database.db, api.applicationId)).filter((r) => r.trigger_id === 'urn:svc:trigger:on-created');
  const settle = () => waitFor(() => eventsSettled(t.database.db), Boolean, 60_000, 'events to settle');

  beforeAll(async () => {
    t = await startEventsPlatform(driver);
    tenant = await createTenant(t, 'ImportEvents');
    const app = await createTodoApp(tenant, scodeWithCreateTrigger());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    ann = await api.signup('Ann', 'ann@example.test');
  }, 120_000);
  afterAll(async () => {
    for (const client of open) client.close();
    await t?.close();
  });

  it('announces one create per imported row after the commit and runs the ToDo.created trigger once per row', async () => {
    const stream = await SseClient.open(`${api.base}/realtime?subscribe=toDos`, { authorization: `Bearer ${ann.token}` });
    open.push(stream);
    expect(stream.status).toBe(200);
    await settle();
    const runsBefore = (await createdRuns()).length;
    // Refused as a whole after whole batches were written (and their events recorded): the last
    // row's status is not one of the enum; nothing is kept, announced or run.
    const refusedRows: unknown[] = Array.from({ length: 2100 }, (_, i) => ({ title: `refused ${i}`, status: 'open', user: ann.user.id }));
    refusedRows.push({ title: 'refused last', status: 'nonsense', user: ann.user.id });
    const refused = await importNdjson(refusedRows);
    expect(refused.status).toBe(422);
    const rows = Array.from({ length: 150 }, (_, i) => ({ title: `imported ${i}`, status: i % 2 ? 'open' : 'done', user: ann.user.id }));
    const imported = await importNdjson(rows);
    expect(imported.status).toBe(200);
    expect(imported.body.models?.[0]?.imported).toBe(150);
    await until(() => stream.changes().length >= 150, '150 realtime events', 60_000);
    await settle();
    // A moment for any extra (duplicate or refused) event to arrive too.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const changes = stream.changes();
    expect(changes).toHaveLength(150);
    expect(changes.every((c) => c.action === 'create')).toBe(true);
    // In the rows' order, each the record as a read answers it.
    expect(changes.map((c) => c.record.title)).toEqual(rows.map((r) => r.title));
    expect(new Set(changes.map((c) => c.id)).size).toBe(150);
    expect(changes[5].record).toMatchObject({ title: 'imported 5', status: 'open' });
    const runs = (await createdRuns()).slice(runsBefore);
    expect(runs).toHaveLength(150);
    expect(runs.every((r) => r.status === 'succeeded')).toBe(true);
    expect(new Set(runs.map((r) => r.input.event?.payload.id))).toEqual(new Set(changes.map((c) => c.id)));
    expect(runs.some((r) => String(r.input.event?.payload.title).startsWith('refused'))).toBe(false);
  }, 180_000);

  it('with onError=skip announces the rows kept only; the outbox holds one event per record', async () => {
    const imported = await importNdjson(
      [
        { title: 'kept a', status: 'open', user: ann.user.id },
        { title: 'left out', status: 'nonsense', user: ann.user.id },
        { title: 'kept b', status: 'done', user: ann.user.id },
      ],
      '?onError=skip',
    );
    expect(imported.status).toBe(200);
    expect(imported.body.models?.[0]?.imported).toBe(2);
    const events = await sql<{ title: string; n: number }>`select payload->>'title' as title, count(*)::int as n from appbuilder.events
      where application_id = ${api.applicationId} and name = 'ToDo.created' and payload->>'title' in ('kept a', 'left out', 'kept b')
      group by 1 order by 1`.execute(t.database.db.kysely);
    expect(events.rows).toEqual([
      { title: 'kept a', n: 1 },
      { title: 'kept b', n: 1 },
    ]);
    const total = await sql<{ n: number }>`select count(*)::int as n from appbuilder.events where application_id = ${api.applicationId} and name = 'ToDo.created'`.execute(t.database.db.kysely);
    const records = (await api.get<{ total: number }>('/toDos?limit=0', 'admin')).body.total;
    expect(total.rows[0].n).toBe(records);
  }, 60_000);
  it('refuses an import whose row points at a record that does not exist: 422 naming the row, no database text, nothing kept or announced', async () => {
    const before = (await api.get<{ total: number }>('/toDos?limit=0', 'admin')).body.total;
    const ghost = '0190a000-0000-7000-8000-00000000dead';
    const refused = await importNdjson([
      { title: 'fine', status: 'open', user: ann.user.id },
      { title: 'orphan', status: 'open', user: ghost },
    ]);
    expect(refused.status).toBe(422);
    const problem = refused.body as unknown as { detail: string; errors: Array<{ path: string; message: string }> };
    expect(problem.detail).toMatch(/points at a record that does not exist/);
    expect(problem.errors[0]!.path).toMatch(/^\/\d+$/);
    // the storage's own names (tables, constraints) never reach the caller
    expect(JSON.stringify(problem)).not.toMatch(/m_todo|fkey|constraint/i);
    expect((await api.get<{ total: number }>('/toDos?limit=0', 'admin')).body.total).toBe(before);
    const orphanEvents = await sql<{ n: number }>`select count(*)::int as n from appbuilder.events where application_id = ${api.applicationId} and payload->>'title' in ('fine', 'orphan')`.execute(t.database.db.kysely);
    expect(orphanEvents.rows[0].n).toBe(0);
  }, 60_000);
});
