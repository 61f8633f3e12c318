/**
 * Realtime across processes (DESIGN §17, issue 24), on PostgreSQL: `serve --role api`, two
 * `--role runtime` and one `--role worker`, each a real `node` process on the CLI entry over one
 * database. A subscriber connected to runtime B receives, within 1 s, what is written through
 * runtime A: by a generated route, by an HTTP trigger's action, and by an event trigger's action
 * that the worker process runs (the welcome to-do made on `User.created`). The outbox row is
 * written in the change's transaction and announced by NOTIFY at commit: nothing else connects
 * the processes. The latencies are printed; the bound asserted is the 1 s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../support/databases.ts';
import { ApiClient } from '../support/client.ts';
import { BOOTSTRAP } from '../support/platform.ts';
import { todoScode } from '../support/examples.ts';
import type { AppReply } from '../support/tenant.ts';
import { startServe, type ServeProcess } from '../platform/serve-processes.ts';
import { SseClient, until, WsClient } from './clients.ts';

const hasPostgres = await postgresAvailable();
if (!hasPostgres) console.warn('[tests] realtime across processes: PostgreSQL does not answer; skipped (CI has it).');

type Rec = Record<string, unknown> & { id: string };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!hasPostgres)('realtime across processes (PostgreSQL): written through one runtime, delivered by another', () => {
  let database: TestDatabase;
  const processes: ServeProcess[] = [];
  let a: ServeProcess;
  let b: ServeProcess;
  let client: ApiClient;
  let app: AppReply;
  const open: Array<{ close(): void }> = [];

  const apiOf = (runtime: ServeProcess) => `${runtime.url}/apps/${app.id}/api/v${app.serverVersion}`;
  const admin = () => ({ authorization: `Bearer ${client.token}`, 'x-svc-api-client': client.apiKey! });
  const call = async (runtime: ServeProcess, method: string, path: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; body: Rec }> => {
    const reply = await fetch(`${apiOf(runtime)}${path}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: reply.status, body: (await reply.json()) as Rec };
  };
  const subscribe = async (runtime: ServeProcess, query: string, headers: Record<string, string>) => {
    const stream = await SseClient.open(`${apiOf(runtime)}/realtime?${query}`, headers);
    open.push(stream);
    expect(stream.status, stream.body).toBe(200);
    return stream;
  };

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // The api first: it migrates the empty database and creates the bootstrap client.
    processes.push(await startServe('api', database.url!));
    const [first, second, worker] = await Promise.all([startServe('runtime', database.url!), startServe('runtime', database.url!), startServe('worker', database.url!)]);
    processes.push(first, second, worker);
    [a, b] = [first, second];
    const root = await ApiClient.login(processes[0].url, { apiKey: BOOTSTRAP.id, secret: BOOTSTRAP.secret });
    const customer = await root.post<{ apiClient: { apiKey: string; secret: string } }>('/v1/customers', { name: 'Realtime processes' });
    client = await ApiClient.login(processes[0].url, customer.body.apiClient);
    const project = await client.post<{ id: string }>('/v1/projects', { name: 'Realtime processes' });
    // The whole example, its event trigger included (the worker runs the welcome action).
    const created = await client.post<AppReply>('/v1/applications', { projectId: project.body.id, name: 'To-do', scode: todoScode() });
    expect(created.status).toBe(201);
    app = created.body;
    expect((await client.post(`/v1/applications/${app.id}/publish`, {})).status).toBe(202);
    for (const runtime of [a, b]) {
      for (let i = 0; (await fetch(`${apiOf(runtime)}/toDos?limit=0`, { headers: admin() })).status !== 200; i++) {
        if (i > 300) throw new Error(`runtime ${runtime.url} does not serve the app: ${runtime.output()}`);
        await sleep(100);
      }
    }
  }, 300_000);

  afterAll(async () => {
    for (const c of open) c.close();
    for (const p of processes.reverse()) await p.stop().catch(() => null);
    await database?.drop();
  }, 60_000);

  it('an event trigger run by the worker (the welcome to-do on sign-up through A) reaches an administrator subscribed on B', async () => {
    const stream = await subscribe(b, 'subscribe=toDos', admin());
    const signedUp = await call(a, 'POST', '/auth/signup', { name: 'Ann', email: 'ann@example.test', password: 'correct horse' }, {});
    expect(signedUp.status).toBe(201);
    const ann = signedUp.body.user as Rec;
    await until(() => stream.changes().some((c) => c.action === 'create'), 'the welcome to-do', 20_000);
    const welcome = stream.changes().find((c) => c.action === 'create')!;
    expect(welcome.record).toMatchObject({ title: 'Welcome, Ann! Add your first to-do.', status: 'open' });
    expect((welcome.record.user as Rec).id ?? welcome.record.user).toBe(ann.id);
    stream.close();
  });

  it('a write through runtime A reaches a subscriber connected to runtime B within 1 s (generated route and HTTP trigger)', async () => {
    const bob = (await call(a, 'POST', '/auth/signup', { name: 'Bob', email: 'bob@example.test', password: 'correct horse' }, {})).body as { token: string; user: Rec } & Rec;
    const bearer = { authorization: `Bearer ${bob.token}` };
    // Bob's own welcome to-do is written by the worker at some moment: only the writes below are timed.
    const stream = await subscribe(b, 'subscribe=toDos', bearer);
    const socket = await WsClient.open(`${apiOf(b).replace(/^http/, 'ws')}/realtime/ws?token=${bob.token}`);
    open.push(socket);
    socket.send({ type: 'subscribe', topics: ['toDos'] });
    await until(() => socket.messages.some((m) => m.type === 'subscribed'), 'subscribed');

    const delays: number[] = [];
    const wsIds: number[] = [];
    const timed = async (label: string, write: () => Promise<{ status: number; body: Rec }>, matches: (c: { action: string; record: Record<string, unknown> }) => boolean) => {
      const sent = performance.now();
      const reply = await write();
      expect(reply.status, `${label}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
      await until(() => stream.changes().some(matches), label, 5_000);
      const index = stream.changes().findIndex(matches);
      const event = stream.events.filter((e) => ['create', 'update', 'delete'].includes(e.event))[index];
      delays.push(event.at - sent);
      await until(() => socket.messages.some((m) => m.record !== undefined && matches({ action: String(m.action), record: m.record as Record<string, unknown> })), `${label} over WebSocket`, 5_000);
      return reply.body;
    };
    const todo = await timed('create', () => call(a, 'POST', '/toDos', { title: 'across', user: bob.user.id }, bearer), (c) => c.action === 'create' && c.record.title === 'across');
    for (let i = 1; i <= 5; i++) {
      await timed(`update ${i}`, () => call(a, 'PATCH', `/toDos/${todo.id}`, { title: `across ${i}` }, bearer), (c) => c.action === 'update' && c.record.title === `across ${i}`);
    }
    // The HTTP trigger's action (data.update inside the action's transaction).
    await timed('complete', () => call(a, 'POST', `/toDos/${todo.id}/complete`, {}, bearer), (c) => c.action === 'update' && c.record.status === 'done');
    await timed('delete', () => fetch(`${apiOf(a)}/toDos/${todo.id}`, { method: 'DELETE', headers: bearer }).then((r) => ({ status: r.status, body: { id: todo.id } })), (c) => c.action === 'delete' && c.record.id === todo.id);
    for (const m of socket.messages.filter((m) => m.record !== undefined)) wsIds.push(Number(m.id));
    console.log(`[realtime processes] write sent through A → delivered by B: ${delays.map((d) => d.toFixed(0)).join(', ')} ms`);
    for (const delay of delays) expect(delay).toBeLessThan(1000);
    // The same changes, in the same order, over WebSocket (ids increase).
    expect(wsIds).toEqual([...wsIds].sort((x, y) => x - y));
    // Runtime A, where the writes were made, has no subscriber: B alone delivered them.
    expect(a.output()).not.toContain('realtime delivery failed');
    stream.close();
    socket.close();
  });
});
