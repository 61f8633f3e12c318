/**
 * Many subscribers of one topic, each seeing only their own records (DESIGN §17), while changes are
 * written concurrently: every committed change reaches its owner once and in number order, even when
 * transactions commit out of number order; one visibility statement per change whatever the number
 * of subscribers. Enough subscribers for the statement kept per topic (its audiences inline in a named
 * prepared statement), then newcomers (joined since it was built, as parameters) and departures
 * (enough for it to be built again) — each step checked on both drivers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type Rec } from '../runtime/served-app.ts';
import { SseClient, until } from './clients.ts';

interface Subscriber {
  /** Its place among every subscriber: the titles it writes end with it. */
  n: number;
  token: string;
  todo: Rec;
  stream: SseClient;
}

describe.each(await availableDrivers())('many subscribers, concurrent writes, on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  const everyone: Subscriber[] = [];

  const join = async (n: number): Promise<Subscriber[]> => {
    const joined = await Promise.all(
      Array.from({ length: n }, async () => {
        const i = everyone.length + Math.random().toString(36).slice(2, 8);
        const user = await api.signup(`User ${i}`, `user-${i}@example.test`);
        const todo = (await api.post('/toDos', { title: 'created', status: 'open', user: user.user.id }, user.token)).body;
        const stream = await SseClient.open(`${api.base}/realtime?subscribe=toDos`, { authorization: `Bearer ${user.token}` });
        expect(stream.status).toBe(200);
        return { n: 0, token: user.token, todo, stream };
      }),
    );
    for (const s of joined) s.n = everyone.push(s) - 1;
    return joined;
  };

  /** Each of `who` changes its to-do's title to `${round} ${n}`, all at once. */
  const changeAll = (who: Subscriber[], round: string) =>
    Promise.all(who.map((s) => api.patch(`/toDos/${s.todo.id}`, { title: `${round} ${s.n}` }, s.token).then((r) => expect(r.status).toBe(200))));

  /** Every subscriber of `who` received exactly its own changes of `rounds`, in order, with increasing ids. */
  const expectOwn = async (who: Subscriber[], rounds: string[]) => {
    const titles = (s: Subscriber) => s.stream.changes().filter((c) => rounds.some((r) => String(c.record.title).startsWith(`${r} `)));
    await until(() => who.every((s) => titles(s).length >= rounds.length), `${rounds.join(', ')} for ${who.length} subscribers`, 20_000);
    who.forEach((s) => {
      expect(s.stream.changes().every((c) => c.id === s.todo.id)).toBe(true);
      expect(titles(s).map((c) => c.record.title)).toEqual(rounds.map((r) => `${r} ${s.n}`));
      const ids = s.stream.events.filter((e) => e.id).map((e) => Number(e.id));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    });
  };

  beforeAll(async () => {
    t = await startTestPlatform(driver, {
      realtime: { retentionSeconds: 60, pingMs: 60_000, maxSubscriptions: 10, maxConnectionsPerUser: 10, maxPerAddress: 1000, maxPerApplication: 10_000, maxBufferedBytes: 1 << 20, revalidateMs: 60_000 },
    });
    tenant = await createTenant(t, 'Many');
    const app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
  }, 120_000);
  afterAll(async () => {
    for (const s of everyone) s.stream.close();
    await t?.close();
  });

  it('delivers concurrent changes to their owners only, once each and in order, as subscribers join and leave', async () => {
    const hub = t.platform.realtime!.hub;
    const first = await join(48);
    // The creates made while joining are judged first.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await hub.settle();
    const before = hub.visibilityStatements;
    await changeAll(first, 'a');
    await changeAll(first, 'b');
    await expectOwn(first, ['a', 'b']);
    // One statement per change for the 48 subscribers.
    expect(hub.visibilityStatements - before).toBe(96);

    // Newcomers: the kept statement plus them.
    const later = await join(5);
    await changeAll([...first, ...later], 'c');
    await expectOwn(first, ['a', 'b', 'c']);
    await expectOwn(later, ['c']);

    // Departures: more than a quarter of those the statement was built for; it is built again.
    for (const s of first.slice(0, 14)) s.stream.close();
    await until(() => hub.connectionCount(api.applicationId) === 39, 'the departures');
    const staying = [...first.slice(14), ...later];
    await changeAll(staying, 'd');
    await expectOwn(first.slice(14), ['a', 'b', 'c', 'd']);
    await expectOwn(later, ['c', 'd']);
    expect(first.slice(0, 14).every((s) => s.stream.changes().every((c) => !String(c.record.title).startsWith('d ')))).toBe(true);
  });
});
