import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidFrom } from '../../src/runtime/events/triggers.ts';
import { availableDrivers } from '../support/databases.ts';
import { todoScode } from '../support/examples.ts';
import type { TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { callApp, eventsSettled, publish, runsOf, signup, startEventsPlatform, waitFor, type StoredRun } from './support.ts';

interface Page {
  items: Array<{ id: string; title: string; status: string; user: unknown }>;
}

/**
 * The to-do example plus event triggers: `ping` gets a `pong`, `boom` fails, `done` leaves a
 * note, and `shout` emits a custom event whose trigger leaves a `heard` to-do.
 */
function eventsScode(): unknown {
  const scode = todoScode() as unknown as { actions: unknown[]; triggers: unknown[] };
  const create = (title: string) => ({
    actionEffectId: 'create',
    effect: 'data.create',
    params: { model: 'ToDo' },
    bindParams: { values: `{'title': ${title}, 'status': 'open', 'user': event.payload.user}` },
  });
  scode.actions.push(
    { id: 'urn:svc:action:pong', startEffectId: 'create', effects: [create("'pong ' + event.payload.id")], bindReturnValue: 'results.create.id' },
    { id: 'urn:svc:action:boom', startEffectId: 'fail', effects: [{ actionEffectId: 'fail', effect: 'flow.fail', params: { status: 500, message: 'boom on purpose' } }] },
    { id: 'urn:svc:action:note-done', startEffectId: 'create', effects: [create("'done, was ' + event.previous.status")] },
    {
      id: 'urn:svc:action:shout',
      startEffectId: 'emit',
      effects: [{ actionEffectId: 'emit', effect: 'event.emit', params: { eventName: 'Shouted' }, bindParams: { payload: "{'id': event.payload.id, 'user': event.payload.user}" } }],
    },
    { id: 'urn:svc:action:hear', startEffectId: 'create', effects: [create("'heard ' + event.payload.id")] },
  );
  const on = (id: string, eventName: string, payload: Record<string, unknown>, actionId: string) => ({
    trigger: { id: `urn:svc:trigger:${id}`, type: 'event', eventName, payload },
    actionId: `urn:svc:action:${actionId}`,
    initialState: {},
    validation: [],
  });
  scode.triggers.push(
    on('on-ping', 'ToDo.created', { title: 'ping' }, 'pong'),
    on('on-boom', 'ToDo.created', { title: 'boom' }, 'boom'),
    on('on-done', 'ToDo.updated', { status: 'done' }, 'note-done'),
    on('on-shout', 'ToDo.created', { title: 'shout' }, 'shout'),
    on('on-shouted', 'Shouted', {}, 'hear'),
  );
  return scode;
}

const drivers = await availableDrivers();

describe.each(drivers)('event triggers of data changes (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: { id: string; serverVersion: string };
  let alice: { token: string; id: string };

  const todosOf = async (token: string) => (await callApp<Page>(t, tenant, app, 'GET', '/toDos?limit=100', token)).body.items;
  const create = async (title: string, as = alice, user = as.id) => callApp<{ id: string }>(t, tenant, app, 'POST', '/toDos', as.token, { title, status: 'open', user });
  const runsFor = async (trigger: string): Promise<StoredRun[]> => (await runsOf(t.database.db, app.id)).filter((r) => r.trigger_id === `urn:svc:trigger:${trigger}`);
  const settle = () => waitFor(() => eventsSettled(t.database.db), Boolean, 30_000, 'events to settle');

  beforeAll(async () => {
    t = await startEventsPlatform(driver);
    tenant = await createTenant(t, 'Events');
    const created = await createTodoApp(tenant, eventsScode());
    app = { id: created.id, serverVersion: (await publish(tenant, created.id)).serverVersion };
    alice = await signup(t, tenant, app, 'Alice');
  });

  afterAll(async () => {
    await t?.close();
  });

  it('runs a matching ToDo.created trigger once, and nothing for a payload the pattern does not match', async () => {
    const other = await create('other');
    const ping = await create('ping');
    expect([other.status, ping.status]).toEqual([201, 201]);
    await waitFor(() => todosOf(alice.token), (items) => items.some((i) => i.title === `pong ${ping.body.id}`), 30_000, 'the pong');
    await settle();

    const titles = (await todosOf(alice.token)).map((i) => i.title);
    expect(titles.filter((title) => title.startsWith('pong '))).toEqual([`pong ${ping.body.id}`]);
    const pings = await runsFor('on-ping');
    expect(pings.map((r) => [r.status, r.input.event?.name, r.input.event?.payload.id])).toEqual([['succeeded', 'ToDo.created', ping.body.id]]);
    // The pong's own ToDo.created and the non-matching 'other' fired nothing.
    const all = await runsOf(t.database.db, app.id);
    expect(all.filter((r) => r.input.event?.payload.id === other.body.id)).toEqual([]);
    expect(await runsFor('on-boom')).toEqual([]);
  });

  it('delivers a row dispatched twice (a crash before marking it) only once', async () => {
    const ping = await create('ping');
    await waitFor(() => todosOf(alice.token), (items) => items.some((i) => i.title === `pong ${ping.body.id}`), 30_000, 'the pong');
    await settle();
    // As if the process had died after sending but before marking: the poll sends it again.
    const reset = await sql`update appbuilder.events set dispatched_at = null
      where name = 'ToDo.created' and payload->>'id' = ${ping.body.id}`.execute(t.database.db.kysely);
    expect(Number(reset.numAffectedRows)).toBe(1);
    await waitFor(
      async () => (await sql<{ n: number }>`select count(*)::int as n from appbuilder.events where dispatched_at is null`.execute(t.database.db.kysely)).rows[0].n,
      (n) => n === 0,
      15_000,
      'the poll to dispatch the row again',
    );
    await settle();
    expect((await todosOf(alice.token)).filter((i) => i.title === `pong ${ping.body.id}`)).toHaveLength(1);
    expect((await runsFor('on-ping')).filter((r) => r.input.event?.payload.id === ping.body.id)).toHaveLength(1);
  });

  it('raises no event for a write that rolled back', async () => {
    const bob = await signup(t, tenant, app, 'Bob');
    // Inserted, then refused by the rule (the to-do would be Bob's): the transaction rolls back.
    const refused = await create('ping', alice, bob.id);
    expect(refused.status).toBe(403);
    await settle();
    const events = await sql<{ n: number }>`select count(*)::int as n from appbuilder.events
      where name = 'ToDo.created' and payload->>'user' = ${bob.id} and payload->>'title' = 'ping'`.execute(t.database.db.kysely);
    expect(events.rows[0].n).toBe(0);
    expect((await todosOf(bob.token)).map((i) => i.title)).toEqual(['Welcome, Bob! Add your first to-do.']);
  });

  it('records a failing action as failed, does not retry it, and still delivers the next event', async () => {
    const boom = await create('boom');
    const ping = await create('ping');
    await waitFor(() => todosOf(alice.token), (items) => items.some((i) => i.title === `pong ${ping.body.id}`), 30_000, 'the pong after the failure');
    await settle();

    const booms = await runsFor('on-boom');
    expect(booms).toHaveLength(1);
    expect(booms[0].status).toBe('failed');
    expect(booms[0].error?.message).toContain('boom on purpose');
    const event = await sql<{ id: string }>`select id from appbuilder.events where name = 'ToDo.created' and payload->>'id' = ${boom.body.id}`.execute(
      t.database.db.kysely,
    );
    const job = await sql<{ state: string; retry_count: number }>`select state, retry_count from pgboss.job
      where name = 'app-event' and id = ${uuidFrom(event.rows[0].id, 'urn:svc:trigger:on-boom')}`.execute(t.database.db.kysely);
    expect(job.rows).toEqual([{ state: 'completed', retry_count: 0 }]);
  });

  it('passes the record before an update as event.previous', async () => {
    const todo = await create('finish the report');
    const done = await callApp(t, tenant, app, 'PATCH', `/toDos/${todo.body.id}`, alice.token, { status: 'done' });
    expect(done.status).toBe(200);
    await waitFor(() => todosOf(alice.token), (items) => items.some((i) => i.title === 'done, was open'), 30_000, 'the note');
    await settle();
    expect((await runsFor('on-done')).map((r) => [r.status, r.input.event?.payload.id])).toEqual([['succeeded', todo.body.id]]);
  });

  it('retries a delivery that met an infrastructure error, with the run\'s writes rolled back in between', async () => {
    const kysely = t.database.db.kysely;
    // The run cannot be stored: the runner throws, its transaction (the pong included) rolls back.
    await sql`alter table appbuilder.runs rename to runs_away`.execute(kysely);
    let ping: { id: string };
    try {
      ping = (await create('ping')).body;
      const event = await waitFor(
        async () => (await sql<{ id: string }>`select id from appbuilder.events where payload->>'id' = ${ping.id}`.execute(kysely)).rows[0]?.id,
        Boolean,
        15_000,
        'the event row',
      );
      const jobId = uuidFrom(event!, 'urn:svc:trigger:on-ping');
      await waitFor(
        async () => (await sql<{ retry_count: number }>`select retry_count from pgboss.job where name = 'app-event' and id = ${jobId}`.execute(kysely)).rows[0],
        (job) => (job?.retry_count ?? 0) >= 1,
        30_000,
        'a failed first attempt',
      );
      expect((await todosOf(alice.token)).some((i) => i.title === `pong ${ping.id}`)).toBe(false);
    } finally {
      await sql`alter table appbuilder.runs_away rename to runs`.execute(kysely);
    }
    await waitFor(() => todosOf(alice.token), (items) => items.some((i) => i.title === `pong ${ping.id}`), 30_000, 'the retried pong');
    await settle();
    expect((await todosOf(alice.token)).filter((i) => i.title === `pong ${ping.id}`)).toHaveLength(1);
    expect((await runsFor('on-ping')).filter((r) => r.input.event?.payload.id === ping.id).map((r) => r.status)).toEqual(['succeeded']);
  });

  it('delivers a custom event raised by event.emit to its trigger', async () => {
    const shout = await create('shout');
    await waitFor(() => todosOf(alice.token), (items) => items.some((i) => i.title === `heard ${shout.body.id}`), 30_000, 'the custom event');
    await settle();
    expect((await runsFor('on-shouted')).map((r) => [r.status, r.input.event])).toEqual([
      ['succeeded', { name: 'Shouted', payload: { id: shout.body.id, user: alice.id } }],
    ]);
  });
});

describe.each(drivers)('the to-do example (%s)', (driver) => {
  let t: TestPlatform;

  beforeAll(async () => {
    // No outbox poll within the test: the sign-up's commit itself dispatches its event.
    t = await startEventsPlatform(driver, { pollSeconds: 3600 });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('signing up runs the User.created trigger and the new user finds the welcome to-do in their list', async () => {
    const tenant = await createTenant(t, 'Todo');
    const created = await createTodoApp(tenant);
    const app = { id: created.id, serverVersion: (await publish(tenant, created.id)).serverVersion };
    const carol = await signup(t, tenant, app, 'Carol');
    const list = () => callApp<Page>(t, tenant, app, 'GET', '/toDos', carol.token);
    const found = await waitFor(list, (reply) => reply.body.items.length > 0, 30_000, 'the welcome to-do');
    expect(found.status).toBe(200);
    expect(found.body.items.map((i) => [i.title, i.status])).toEqual([['Welcome, Carol! Add your first to-do.', 'open']]);
    const runs = await runsOf(t.database.db, app.id);
    expect(runs.map((r) => [r.trigger_id, r.status, r.input.event?.payload.id])).toEqual([['urn:svc:trigger:user-created', 'succeeded', carol.id]]);
  });
});
