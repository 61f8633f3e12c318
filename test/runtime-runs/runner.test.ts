// The action runner against a real published app (PGlite, and PostgreSQL when it answers): every
// effect family over the real tables under the caller's rules, one transaction per run, the outbox
// written only by a committed run, REAL rollback of an unhandled failure, runs stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Caller } from '../../src/runtime/caller.ts';
import { AfterCommit } from '../../src/runtime/http/after-commit.ts';
import { ActionRunner, type RunSpec } from '../../src/runtime/runs/runner.ts';
import { RunStore } from '../../src/runtime/runs/store.ts';
import { ident } from '../../src/storage/sql.ts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Trigger } from '../../src/definition/schema.ts';
import { availableDrivers, postgresAvailable } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant } from '../support/tenant.ts';
import { outboxEvents, publishApp, rowCount, runnerScode, signup, TODO, triggerOf, USER, type Published } from './support.ts';

describe.each(await availableDrivers())('action runner on %s', (driver) => {
  let t: TestPlatform;
  let app: Published;
  let runner: ActionRunner;
  let store: RunStore;
  let commits = 0;
  let alice: { token: string; user: Record<string, unknown> & { id: string } };
  let bob: { token: string; user: Record<string, unknown> & { id: string } };

  const spec = (actionId: string, caller: Caller, initialState: Record<string, unknown> = {}): RunSpec => ({
    app: app.served.compiled,
    triggerId: null,
    actionId: `urn:svc:action:${actionId}`,
    caller,
    initialState,
  });
  const asUser = (who: typeof alice): Caller => ({ kind: 'user', user: who.user });

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    const tenant = await createTenant(t, 'Runner');
    // The platform's event queue would run the welcome trigger on every sign-up at once (instant pick-up) and
    // add to-dos these tests count; here only the runner under test runs it, so it listens for an event nobody emits.
    app = await publishApp(
      t,
      tenant,
      runnerScode((scode) => {
        for (const { trigger } of scode.triggers) if (trigger.type === 'event') trigger.eventName = 'User.welcomeRequested';
      }),
    );
    const afterCommit = new AfterCommit();
    afterCommit.onCommitted(() => commits++);
    store = new RunStore(t.platform.db);
    runner = new ActionRunner(t.platform.db, afterCommit, store);
    alice = await signup(t, app.path, 'Alice');
    bob = await signup(t, app.path, 'Bob');
  }, 120_000);
  afterAll(() => t?.close());

  it('runs data.create/get/update/find/count/delete in one committed transaction, relationships as ids', async () => {
    const before = await rowCount(t, app.served, TODO);
    const commitsBefore = commits;
    const run = await runner.run(spec('crud', asUser(alice), { title: 'write tests', userId: alice.user.id }));
    expect(run.error).toBeUndefined();
    expect(run.status).toBe('succeeded');
    const result = run.result as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(result.created).toMatchObject({ title: 'write tests', status: 'open', user: alice.user.id });
    expect(result.got).toMatchObject({ id: result.created.id, user: alice.user.id });
    expect(result.updated).toMatchObject({ id: result.created.id, status: 'done' });
    // Alice sees only her own to-dos: the one just done.
    expect(result.found.map((r: { id: string }) => r.id)).toEqual([result.created.id]);
    expect(result.count).toBe(1);
    expect(result.deleted).toBe(result.created.id);
    expect(result.after).toBe(0);
    expect(run.steps.map((s) => s.actionEffectId)).toEqual(['create', 'get', 'update', 'find', 'count', 'delete', 'countAfter']);
    expect(run.steps.every((s) => s.durationMs >= 0 && s.output !== undefined)).toBe(true);
    expect(await rowCount(t, app.served, TODO)).toBe(before);
    expect(commits).toBe(commitsBefore + 1);
    // The data changes went to the outbox with the run.
    const created = await outboxEvents(t, app.id, 'ToDo.created');
    expect(created.some((e) => e.payload.id === result.created.id)).toBe(true);
    // Stored, with its steps.
    const stored = await store.get(app.id, run.id);
    expect(stored).toMatchObject({ status: 'succeeded', actionId: 'urn:svc:action:crud', triggerId: null, input: { authId: alice.user.id, caller: 'user' } });
    expect(stored!.steps).toHaveLength(7);
  });

  it('applies the caller’s rules: another user’s to-do is not found, and not in their list', async () => {
    const mine = await runner.run(spec('crud', { kind: 'system' }, { title: 'alice only', userId: alice.user.id }));
    expect(mine.status).toBe('succeeded');
    const todo = await runner.run({ ...spec('handled', { kind: 'system' }, { userId: alice.user.id }) });
    const todoId = (todo.result as { id: string }).id;
    const asBob = await runner.run(spec('peek', asUser(bob), { todoId }));
    expect(asBob.status).toBe('failed');
    expect(asBob.error).toMatchObject({ status: 404, effectId: 'one' });
    expect(asBob.steps[0].output).toEqual([]);
    const asAlice = await runner.run(spec('peek', asUser(alice), { todoId }));
    expect(asAlice.status).toBe('succeeded');
    expect((asAlice.result as { one: { id: string } }).one.id).toBe(todoId);
    const asSystem = await runner.run(spec('peek', { kind: 'system' }, { todoId }));
    expect((asSystem.result as { all: unknown[] }).all.length).toBeGreaterThanOrEqual(1);
  });

  it('rolls back two writes when an unhandled failure follows them, and stores the failed run', async () => {
    const [todos, users, commitsBefore] = [await rowCount(t, app.served, TODO), await rowCount(t, app.served, USER), commits];
    const run = await runner.run(spec('two-writes-then-fail', { kind: 'system' }));
    expect(run.status).toBe('failed');
    expect(run.error).toEqual({ message: 'Changed my mind.', code: 'changed_mind', effectId: 'fail', status: 409 });
    // Both writes happened inside the run ...
    expect(run.steps.map((s) => [s.actionEffectId, s.error === undefined])).toEqual([
      ['user', true],
      ['todo', true],
      ['fail', false],
    ]);
    const doomedId = (run.steps[0].output as { id: string }).id;
    // ... and neither survived it.
    expect(await rowCount(t, app.served, TODO)).toBe(todos);
    expect(await rowCount(t, app.served, USER)).toBe(users);
    expect((await outboxEvents(t, app.id, 'User.created')).some((e) => e.payload.id === doomedId)).toBe(false);
    expect(commits).toBe(commitsBefore);
    const stored = await store.get(app.id, run.id);
    expect(stored).toMatchObject({ status: 'failed', error: { code: 'changed_mind', status: 409 } });
  });

  it('records event.emit in the outbox only when the run commits', async () => {
    const committed = await runner.run(spec('emit', { kind: 'system' }, { marker: 'kept', fail: false }));
    expect(committed.status).toBe('succeeded');
    const failed = await runner.run(spec('emit', { kind: 'system' }, { marker: 'rolled-back', fail: true }));
    expect(failed.status).toBe('failed');
    expect(failed.steps[0]).toMatchObject({ actionEffectId: 'emit', output: { eventName: 'ToDo.nudged', payload: { marker: 'rolled-back' } } });
    const markers = (await outboxEvents(t, app.id, 'ToDo.nudged')).map((e) => e.payload.marker);
    expect(markers).toEqual(['kept']);
  });

  it('runs flow.set, flow.forEach, flow.if and flow.return', async () => {
    const big = await runner.run(spec('flows', { kind: 'anonymous' }, { items: [1, 2, 3] }));
    expect(big.status).toBe('succeeded');
    expect(big.response).toEqual({ status: 201, headers: { 'x-size': 'big' }, body: { total: 6 } });
    const small = await runner.run(spec('flows', { kind: 'anonymous' }, { items: [1, 2] }));
    expect(small.response).toEqual({ status: 200, headers: {}, body: { total: 3, size: 'small' } });
    expect(small.steps.map((s) => s.actionEffectId)).toEqual(['init', 'loop', 'add', 'add', 'decide', 'small']);
  });

  it('keeps the transaction usable after a handled database error (continueOriginalFlow)', async () => {
    const before = await rowCount(t, app.served, TODO);
    const run = await runner.run(spec('handled', { kind: 'system' }, { userId: bob.user.id }));
    expect(run.error).toBeUndefined();
    expect(run.status).toBe('succeeded');
    expect(run.steps[0].error).toMatchObject({ effectId: 'bad' });
    expect((run.result as { recovered: string }).recovered).toBe(run.steps[0].error!.code);
    expect(await rowCount(t, app.served, TODO)).toBe(before + 1);
  });

  it('lets the action-level handler take a database failure; the write before it commits', async () => {
    const before = await rowCount(t, app.served, TODO);
    const run = await runner.run(spec('guarded', { kind: 'system' }, { userId: bob.user.id }));
    expect(run.status).toBe('succeeded');
    expect(run.steps.map((s) => s.actionEffectId)).toEqual(['first', 'bad', 'note']);
    expect(run.result).toEqual({ first: (run.steps[0].output as { id: string }).id, handled: 'bad' });
    expect(await rowCount(t, app.served, TODO)).toBe(before + 1);
  });

  it('rolls back a test run whatever its outcome, and does not store it', async () => {
    const before = await rowCount(t, app.served, TODO);
    const run = await runner.test(spec('handled', { kind: 'system' }, { userId: bob.user.id }));
    expect(run.status).toBe('succeeded');
    expect(await rowCount(t, app.served, TODO)).toBe(before);
    expect(await store.get(app.id, run.id)).toBeUndefined();
  });

  it('runs an event trigger as the system: the welcome to-do for a new user; a false validation is a failed run', async () => {
    const trigger = triggerOf(app.served, 'urn:svc:trigger:user-created');
    const carol = await signup(t, app.path, 'Carol');
    const ran = await runner.runEventTrigger(app.served, trigger, { name: 'User.created', payload: carol.user });
    expect(ran.status).toBe('succeeded');
    const todoModel = app.served.compiled.modelsById.get(TODO)!;
    const welcome = await sql<{ n: number }>`select count(*)::int as n from ${ident(app.served.compiled.schema, todoModel.table)}
      where ${ident(todoModel.fieldsByName.get('user')!.column!)} = ${carol.user.id}`.execute(t.platform.db.kysely);
    expect(Number(welcome.rows[0].n)).toBe(1);
    const stored = await store.get(app.id, ran.id);
    expect(stored).toMatchObject({ triggerId: 'urn:svc:trigger:user-created', input: { caller: 'system', event: { name: 'User.created' } } });

    const refused = await runner.runEventTrigger(app.served, trigger, { name: 'User.created', payload: { ...carol.user, name: '' } });
    expect(refused.status).toBe('failed');
    const failed = await store.get(app.id, refused.id);
    expect(failed).toMatchObject({ status: 'failed', steps: [], error: { code: 'validation_failed', status: 422 } });
    expect(failed!.error!.message).toContain("event.payload.name != ''");
  });
});

// A deadlock is the database's failure, not the action's: the run is not stored as failed, the
// runner throws so that the event queue retries. Only PostgreSQL has two connections to deadlock.
describe.runIf(await postgresAvailable())('action runner on postgres, database failures', () => {
  let t: TestPlatform;
  let app: Published;
  let pause: Server;
  let pauseUrl: string;

  beforeAll(async () => {
    t = await startTestPlatform('postgres');
    const tenant = await createTenant(t, 'Deadlock');
    app = await publishApp(t, tenant, runnerScode());
    pause = createServer((_request, response) => setTimeout(() => response.end('ok'), 400));
    await new Promise<void>((resolve) => pause.listen(0, '127.0.0.1', resolve));
    pauseUrl = `http://127.0.0.1:${(pause.address() as AddressInfo).port}/pause`;
  }, 120_000);
  afterAll(async () => {
    pause?.close();
    await t?.close();
  });

  it('throws on a deadlock instead of storing a failed run', async () => {
    const store = new RunStore(t.platform.db);
    const runner = new ActionRunner(t.platform.db, new AfterCommit(), store, { httpAllow: ['127.0.0.1'] });
    const owner = await signup(t, app.path, 'Dora');
    const ids: string[] = [];
    while (ids.length < 2) {
      const run = await runner.run({ app: app.served.compiled, triggerId: null, actionId: 'urn:svc:action:handled', caller: { kind: 'system' }, initialState: { userId: owner.user.id } });
      ids.push((run.result as { id: string }).id);
    }
    const trigger: Trigger = { trigger: { id: 'urn:svc:trigger:swap', type: 'event', eventName: 'swap', payload: {} }, actionId: 'urn:svc:action:swap', initialState: {}, validation: [] };
    const swapping = (first: string, second: string) =>
      runner.runEventTrigger(app.served, { ...trigger, initialState: { first: `'${first}'`, second: `'${second}'`, pauseUrl: `'${pauseUrl}'` } }, { name: 'swap', payload: {} });
    const outcomes = await Promise.allSettled([swapping(ids[0], ids[1]), swapping(ids[1], ids[0])]);
    const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    const fulfilled = outcomes.filter((o) => o.status === 'fulfilled');
    expect(rejected).toHaveLength(1);
    expect((rejected[0].reason as { code?: string }).code).toBe('40P01');
    expect(fulfilled).toHaveLength(1);
    const stored = await store.list(app.id, { actionId: 'urn:svc:action:swap', limit: 10, offset: 0 });
    expect(stored.items.map((r) => r.status)).toEqual(['succeeded']);
  });
});
