/**
 * The outbox reader's order (DESIGN §17, src/realtime/feed.ts), on PostgreSQL, where transactions
 * commit in any order: a change numbered before another but committed after it is still delivered,
 * and first (the reader waits for the writer of the outbox still running); a long transaction that
 * does not write the outbox (a report, another database's work) holds nothing back.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAvailable } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type Rec } from '../runtime/served-app.ts';
import { SseClient, until } from './clients.ts';

const hasPostgres = await postgresAvailable();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!hasPostgres)('the outbox is read in number order, waiting only for its writers (PostgreSQL)', () => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let ann: { token: string; user: Rec };
  let other: pg.Client;
  const open: Array<{ close(): void }> = [];

  beforeAll(async () => {
    t = await startTestPlatform('postgres');
    tenant = await createTenant(t, 'Order');
    const app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    ann = await api.signup('Ann', 'ann@example.test');
    other = new pg.Client({ connectionString: t.database.url! });
    await other.connect();
  }, 120_000);
  afterAll(async () => {
    for (const c of open) c.close();
    await other?.end();
    await t?.close();
  });

  it('delivers a change committed after a later-numbered one, first, whatever order the transactions took their ids in', async () => {
    const held = (await api.post('/toDos', { title: 'held', status: 'open', user: ann.user.id }, ann.token)).body;
    const quick = (await api.post('/toDos', { title: 'quick', status: 'open', user: ann.user.id }, ann.token)).body;
    const stream = await SseClient.open(`${api.base}/realtime?subscribe=toDos`, { authorization: `Bearer ${ann.token}` });
    open.push(stream);
    const third = new pg.Client({ connectionString: t.database.url! });
    await third.connect();
    const insert = (client: pg.Client, todo: Rec, title: string) =>
      client.query(`insert into appbuilder.events (id, application_id, name, payload, previous) values (gen_random_uuid(), $1, 'ToDo.updated', $2, $3)`, [
        api.applicationId,
        JSON.stringify({ ...todo, title, user: ann.user.id }),
        JSON.stringify({ ...todo, user: ann.user.id }),
      ]);
    try {
      // `quick` takes its transaction id first; `held` takes a later id but the lower number, and stays open.
      await third.query('begin');
      await third.query('select pg_current_xact_id()');
      await other.query('begin');
      await insert(other, held, 'held 2');
      await insert(third, quick, 'quick 2');
      await third.query('commit');
      await sleep(600);
      expect(stream.changes().filter((c) => c.action === 'update')).toEqual([]);
      await other.query('commit');
    } finally {
      await other.query('rollback').catch(() => {});
      await third.end();
    }
    await until(() => stream.changes().filter((c) => c.action === 'update').length >= 2, 'both changes');
    const updates = stream.events.filter((e) => e.event === 'update');
    expect(updates.map((e) => e.data.record!.title)).toEqual(['held 2', 'quick 2']);
    expect(Number(updates[0].id)).toBeLessThan(Number(updates[1].id));
    stream.close();
  });

  it('is not held back by a long transaction that does not write the outbox', async () => {
    const todo = (await api.post('/toDos', { title: 'free', status: 'open', user: ann.user.id }, ann.token)).body;
    const stream = await SseClient.open(`${api.base}/realtime?subscribe=toDos/${todo.id}`, { authorization: `Bearer ${ann.token}` });
    open.push(stream);
    await other.query('begin');
    // An id of its own, held: the oldest running transaction of the cluster from now on.
    await other.query('select pg_current_xact_id()');
    try {
      const sent = performance.now();
      expect((await api.patch(`/toDos/${todo.id}`, { title: 'free 2' }, ann.token)).status).toBe(200);
      await until(() => stream.changes().some((c) => c.record.title === 'free 2'), 'the change', 5_000);
      expect(stream.events.find((e) => e.event === 'update')!.at - sent).toBeLessThan(1000);
    } finally {
      await other.query('rollback');
    }
    stream.close();
  });
});
