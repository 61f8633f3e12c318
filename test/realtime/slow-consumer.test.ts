/**
 * Slow consumers (DESIGN §17, issue 24): a subscriber that stops reading is dropped rather than
 * buffered without bound. Each transport checks what it has left unsent after every write; past
 * APPBUILDER_REALTIME_MAX_BUFFER (256 KiB here) the hub forgets the connection and the socket is
 * destroyed. Shown over SSE and WebSocket with subscribers whose sockets are paused while 100 KB
 * records keep changing: the server never held more than the limit plus one event for them, they
 * were dropped, and a subscriber that reads receives every change meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents } from '../runtime/served-app.ts';
import { PausableSubscriber, SseClient, until } from './clients.ts';

const LIMIT = 256 * 1024;
const BIG = 100 * 1024;

describe('slow realtime consumers are dropped, not buffered (PGlite)', () => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  const open: Array<{ close(): void }> = [];
  const hub = () => t.platform.realtime!.hub;

  beforeAll(async () => {
    t = await startTestPlatform('pglite', {
      realtime: { retentionSeconds: 60, pingMs: 60_000, maxSubscriptions: 10, maxConnectionsPerUser: 10, maxPerAddress: 1000, maxPerApplication: 10_000, maxBufferedBytes: LIMIT, revalidateMs: 60_000 },
    });
    tenant = await createTenant(t, 'Slow');
    const app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
  }, 120_000);
  afterAll(async () => {
    for (const c of open) c.close();
    await t?.close();
  });

  /** Changes a 100 KB to-do until `slow` is dropped (at most `max` times); the number of changes made. */
  async function changeUntilDropped(todoId: string, dropped: number, max = 600): Promise<number> {
    for (let i = 1; i <= max; i++) {
      const reply = await api.patch(`/toDos/${todoId}`, { description: `${i} ${'x'.repeat(BIG)}` }, 'admin');
      expect(reply.status).toBe(200);
      await hub().settle();
      if (hub().slow.dropped > dropped) return i;
    }
    throw new Error(`not dropped after ${max} changes of ${BIG} bytes`);
  }

  it.each(['SSE', 'WebSocket'] as const)('drops a %s subscriber that stops reading; one that reads gets every change', async (transport) => {
    const user = await api.signup(`Slow ${transport}`, `slow-${transport.toLowerCase()}@example.test`);
    const bearer = { authorization: `Bearer ${user.token}` };
    const todo = (await api.post('/toDos', { title: `slow ${transport}`, status: 'open', user: user.user.id }, user.token)).body;
    const topic = `toDos/${todo.id}`;
    const fast = await SseClient.open(`${api.base}/realtime?subscribe=${topic}`, bearer);
    open.push(fast);
    const slow =
      transport === 'SSE'
        ? await PausableSubscriber.sse(`${api.base}/realtime?subscribe=${topic}`, bearer)
        : await PausableSubscriber.webSocket(`${api.base.replace(/^http/, 'ws')}/realtime/ws?token=${user.token}`);
    open.push(slow);
    if (transport === 'WebSocket') {
      slow.send({ type: 'subscribe', topics: [topic] });
      await until(() => slow.received > 30, 'the subscribed answer');
    }
    const before = { dropped: hub().slow.dropped, connections: hub().connectionCount(api.applicationId) };
    slow.pause();

    const changes = await changeUntilDropped(todo.id, before.dropped);
    // What the server had left unsent for it when it was dropped: the limit and at most one event.
    expect(hub().slow.largestUnsent).toBeGreaterThan(LIMIT);
    expect(hub().slow.largestUnsent).toBeLessThan(LIMIT + BIG + 4096);
    expect(hub().connectionCount(api.applicationId)).toBe(before.connections - 1);
    // Changes go on; nothing more is kept for it.
    for (let i = 0; i < 10; i++) await api.patch(`/toDos/${todo.id}`, { description: `after ${i} ${'y'.repeat(BIG)}` }, 'admin');
    await hub().settle();
    expect(hub().slow.dropped).toBe(before.dropped + 1);

    // Read again: what arrives is what the kernel's buffers and the limit held, then the end.
    slow.resume();
    await until(() => slow.ended, 'the end of the dropped connection');
    const produced = (changes + 10) * BIG;
    console.log(`[slow consumer ${transport}] dropped after ${changes} changes of ${BIG / 1024} KB (${(hub().slow.largestUnsent / 1024).toFixed(0)} KiB unsent at the drop; read afterwards ${(slow.received / 1024 / 1024).toFixed(1)} of ${(produced / 1024 / 1024).toFixed(1)} MiB made)`);
    expect(slow.received).toBeLessThan(produced);

    // The subscriber that reads got every change, in order.
    await until(() => fast.changes().length >= changes + 10, 'every change for the reader');
    expect(fast.changes().map((c) => String(c.record.description).split(' ')[0])).toEqual([...Array.from({ length: changes }, (_, i) => String(i + 1)), ...Array.from({ length: 10 }, () => 'after')]);
    expect(fast.ended).toBe(false);
  });
});
