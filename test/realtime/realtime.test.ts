// Realtime over real HTTP on PGlite and PostgreSQL (DESIGN §17): SSE and WebSocket subscribers
// see exactly the changes their read rules allow, shaped by field rules; a record that becomes
// unreadable arrives as a delete; a rolled-back action announces nothing; resume with
// Last-Event-ID; limits (429); token expiry disconnects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type Rec } from '../runtime/served-app.ts';
import { SseClient, until, WsClient } from './clients.ts';

type Scode = { models: Array<{ id: string; fields: Array<Record<string, unknown>>; accessControl: unknown }>; actions: unknown[]; triggers: unknown[] };

/** To-dos readable by their owner, and by every signed-in user while `description` is 'shared'; `privateNote` for the owner only. */
function definition(): Scode {
  const scode = todoScodeWithoutEvents() as unknown as Scode;
  const todo = scode.models.find((m) => m.id === 'urn:svc:model:todo')!;
  todo.accessControl = {
    rules: [
      { access: 'allow', criteria: "auth != null && (record.user == auth.id || (operation == 'read' && record.description == 'shared'))" },
    ],
    defaultAccess: 'deny',
  };
  todo.fields.push({
    id: 'urn:svc:edge:todo-private-note', name: 'privateNote', relationshipOwner: true, min: 0, max: 1, to: 'p_TEXT',
    accessControl: { rules: [{ access: 'allow', criteria: 'auth != null && record.user == auth.id' }], defaultAccess: 'deny' },
  });
  // An action that creates a to-do and then fails: its transaction rolls back.
  scode.actions.push({
    id: 'urn:svc:action:doomed',
    startEffectId: 'create',
    effects: [
      { actionEffectId: 'create', effect: 'data.create', params: { model: 'ToDo', values: { title: 'doomed' } }, bindParams: { values: "{'title': 'doomed', 'user': auth.id}" }, next: 'fail' },
      { actionEffectId: 'fail', effect: 'flow.fail', params: { status: 409, message: 'rolled back on purpose' } },
    ],
  });
  scode.triggers.push({
    trigger: { id: 'urn:svc:trigger:doomed', type: 'http', method: 'POST', path: '/doomed' },
    actionId: 'urn:svc:action:doomed', initialState: {}, validation: [], isPublic: false,
  });
  return scode;
}

describe.each(await availableDrivers())('realtime on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let ann: { token: string; user: Rec };
  let bob: { token: string; user: Rec };
  const open: Array<{ close(): void }> = [];
  const sse = async (query: string, token?: string, headers: Record<string, string> = {}) => {
    const client = await SseClient.open(`${api.base}/realtime?${query}`, token ? { authorization: `Bearer ${token}`, ...headers } : headers);
    open.push(client);
    return client;
  };

  beforeAll(async () => {
    t = await startTestPlatform(driver, {
      // Retention 5 s: the replay test's 20 writes must fit in it on a loaded 2-core machine (they took 2.9 s at load 15).
      realtime: { retentionSeconds: 5, pingMs: 200, maxSubscriptions: 3, maxConnectionsPerUser: 4, maxPerAddress: 1000, maxPerApplication: 10_000, maxBufferedBytes: 1 << 20, revalidateMs: 300 },
    });
    tenant = await createTenant(t, 'Realtime');
    const app = await createTodoApp(tenant, definition());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    ann = await api.signup('Ann', 'ann@example.test');
    bob = await api.signup('Bob', 'bob@example.test');
  }, 120_000);
  afterAll(async () => {
    for (const c of open) c.close();
    await t?.close();
  });

  it('shows each subscriber only what they may read, field rules applied; unreadable → delete; rollback → nothing', async () => {
    const annStream = await sse('subscribe=toDos', ann.token);
    const bobStream = await sse('subscribe=toDos', bob.token);
    expect(annStream.status).toBe(200);
    const created = (await api.post('/toDos', { title: 'mine', status: 'open', privateNote: 'secret', user: ann.user.id }, ann.token)).body;
    const shared = await api.patch(`/toDos/${created.id}`, { description: 'shared' }, ann.token);
    expect(shared.status, JSON.stringify(shared.body)).toBe(200);
    await api.patch(`/toDos/${created.id}`, { description: 'private' }, ann.token);
    // From an action (the complete-to-do trigger's data.update), not a generated route.
    expect((await api.post(`/toDos/${created.id}/complete`, {}, ann.token)).status).toBe(200);
    // A rolled-back action: its create is never announced.
    expect((await api.post('/doomed', {}, bob.token)).status).toBe(409);
    const bobs = (await api.post('/toDos', { title: 'bob', status: 'open', user: bob.user.id }, bob.token)).body;
    const asRead = (await api.get(`/toDos/${created.id}`, ann.token)).body;
    await api.delete(`/toDos/${created.id}`, ann.token);
    await until(() => annStream.changes().length >= 5 && bobStream.changes().length >= 3, 'the changes').catch((error: unknown) => {
      console.log(JSON.stringify({ ann: annStream.events, bob: bobStream.events }));
      throw error;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(annStream.changes().map((c) => `${c.action} ${c.id}`)).toEqual([
      `create ${created.id}`, `update ${created.id}`, `update ${created.id}`, `update ${created.id}`, `delete ${created.id}`,
    ]);
    const annFirst = annStream.changes()[0].record;
    expect(annFirst).toMatchObject({ id: created.id, title: 'mine', status: 'open', privateNote: 'secret' });
    // The record exactly as GET /toDos/{id} answers Ann (the to-one user expanded).
    expect(annStream.changes()[3].record).toEqual(asRead);
    expect(annStream.changes()[4].record).toEqual({ id: created.id });

    // Bob: the shared moment (without Ann's private note), then a delete when it stopped being readable; his own create; nothing doomed.
    expect(bobStream.changes().map((c) => `${c.action} ${c.id}`)).toEqual([`update ${created.id}`, `delete ${created.id}`, `create ${bobs.id}`]);
    expect(bobStream.changes()[0].record).toMatchObject({ id: created.id, description: 'shared' });
    expect(bobStream.changes()[0].record).not.toHaveProperty('privateNote');
    expect(bobStream.changes()[1].record).toEqual({ id: created.id });
    expect(bobStream.events.every((e) => (e.data.record as { title?: string } | undefined)?.title !== 'doomed')).toBe(true);
    // Event ids increase.
    const ids = annStream.events.filter((e) => e.id).map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    // Pings arrive (200 ms here).
    expect(annStream.comments).toBeGreaterThan(1);
    annStream.close();
    bobStream.close();
  });

  it('serves a per-record topic, and management credentials as the administrator (rules bypassed)', async () => {
    const todo = (await api.post('/toDos', { title: 'watched', status: 'open', user: ann.user.id }, ann.token)).body;
    const other = (await api.post('/toDos', { title: 'other', status: 'open', user: ann.user.id }, ann.token)).body;
    const one = await sse(`subscribe=toDos/${todo.id}`, ann.token);
    const admin = await sse('subscribe=toDos', undefined, { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey! });
    expect(admin.status).toBe(200);
    await api.patch(`/toDos/${other.id}`, { title: 'other 2' }, ann.token);
    await api.patch(`/toDos/${todo.id}`, { title: 'watched 2' }, ann.token);
    // (A stream opened just after a commit may still get that change, if this process had not handed it on yet.)
    await until(() => one.changes().some((c) => c.action === 'update') && admin.changes().some((c) => c.record.title === 'watched 2'), 'the per-record change');
    expect(one.changes().filter((c) => c.action === 'update').map((c) => `${c.action} ${c.id}`)).toEqual([`update ${todo.id}`]);
    expect(one.changes().every((c) => c.id === todo.id)).toBe(true);
    expect(admin.changes().find((c) => c.action === 'update')!.record).toMatchObject({ id: other.id, title: 'other 2' });
    one.close();
    admin.close();
  });

  it('subscribes and unsubscribes over WebSocket', async () => {
    const ws = await WsClient.open(`${api.base.replace(/^http/, 'ws')}/realtime/ws?token=${bob.token}`);
    open.push(ws);
    ws.send({ type: 'subscribe', topics: ['toDos'] });
    await until(() => ws.messages.some((m) => m.type === 'subscribed'), 'subscribed');
    const todo = (await api.post('/toDos', { title: 'ws', status: 'open', user: bob.user.id }, bob.token)).body;
    await until(() => ws.messages.some((m) => m.action === 'create'), 'the create');
    const event = ws.messages.find((m) => m.action === 'create')!;
    expect(event).toMatchObject({ resource: 'toDos', action: 'create', record: { id: todo.id, title: 'ws' } });
    expect(typeof event.id).toBe('number');
    ws.send({ type: 'unsubscribe', topics: ['toDos'] });
    await until(() => ws.messages.some((m) => m.type === 'unsubscribed'), 'unsubscribed');
    await api.patch(`/toDos/${todo.id}`, { title: 'unheard' }, bob.token);
    const marker = await SseClient.open(`${api.base}/realtime?subscribe=toDos`, { authorization: `Bearer ${bob.token}` });
    open.push(marker);
    await api.patch(`/toDos/${todo.id}`, { title: 'marker' }, bob.token);
    await until(() => marker.changes().length >= 1, 'the marker change');
    expect(ws.messages.filter((m) => m.action !== undefined)).toHaveLength(1);
    ws.send({ type: 'subscribe', topics: ['nope'] });
    await until(() => ws.messages.some((m) => m.type === 'error'), 'the error');
    expect(ws.messages.find((m) => m.type === 'error')).toMatchObject({ status: 400 });
    ws.close();
    marker.close();
  });

  it('refuses bad topics (400), bad tokens (401), and past the limits (429) with problem bodies', async () => {
    const bad = await sse('subscribe=nothings', ann.token);
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body)).toMatchObject({ status: 400, errors: [{ path: '/subscribe' }] });
    const tooMany = await sse(`subscribe=toDos,users,toDos/${ann.user.id},users/${ann.user.id}`, ann.token);
    expect(tooMany.status).toBe(429);
    expect(JSON.parse(tooMany.body)).toMatchObject({ status: 429 });
    const refused = await sse('subscribe=toDos', 'not-a-token');
    expect(refused.status).toBe(401);
    const carl = await api.signup('Carl', 'carl@example.test');
    const streams = await Promise.all([1, 2, 3, 4].map(() => sse('subscribe=toDos', carl.token)));
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200, 200]);
    const fifth = await sse('subscribe=toDos', carl.token);
    expect(fifth.status).toBe(429);
    const ws = await fetch(`${api.base}/realtime/ws`, { headers: { authorization: `Bearer ${carl.token}`, connection: 'upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' } }).catch(() => null);
    if (ws) expect(ws.status).toBe(429);
    for (const s of streams) s.close();
    // Closed streams free their places.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const again = await sse('subscribe=toDos', carl.token);
    expect(again.status).toBe(200);
    again.close();
  });

  it('disconnects a subscriber when its token expires', async () => {
    // A token like the app's own, expiring in 2 s (signed with the app's key, as the service signs them).
    const key = await appKey(t, api.applicationId);
    const soon = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(ann.user.id).setAudience(`app:${api.applicationId}`).setIssuedAt().setExpirationTime('2s').sign(key);
    const stream = await sse('subscribe=toDos', soon);
    expect(stream.status).toBe(200);
    await until(() => stream.ended, 'the disconnect', 8000);
    expect(stream.events.some((e) => e.event === 'close')).toBe(true);
  });

  it('disconnects a subscriber whose session is logged out (revocation, checked again every revalidateMs)', async () => {
    const session = (await api.post<{ token: string }>('/auth/login', { email: 'bob@example.test', password: 'correct horse' })).body;
    const stream = await sse('subscribe=toDos', session.token);
    const other = await sse('subscribe=toDos', bob.token);
    expect(stream.status).toBe(200);
    expect((await api.post('/auth/logout', {}, session.token)).status).toBeLessThan(300);
    await until(() => stream.ended, 'the disconnect after log-out', 8000);
    expect(stream.events.find((e) => e.event === 'close')?.data.reason).toBe('the token is no longer valid');
    // Bob's other session was not logged out: its stream stays and still receives his changes.
    await api.post('/toDos', { title: 'after log-out', status: 'open', user: bob.user.id }, bob.token);
    await until(() => other.changes().some((c) => c.record.title === 'after log-out'), 'the other session\'s change');
    expect(other.ended).toBe(false);
  });

  it('replays exactly the missed changes with Last-Event-ID, in order; past the retention → reset', async () => {
    const first = await sse('subscribe=toDos', ann.token);
    const todo = (await api.post('/toDos', { title: 'resume 0', status: 'open', user: ann.user.id }, ann.token)).body;
    await until(() => first.changes().length >= 1, 'the first change');
    const last = first.events.filter((e) => e.id).at(-1)!.id!;
    first.close();
    for (let i = 1; i <= 20; i++) await api.patch(`/toDos/${todo.id}`, { title: `resume ${i}` }, ann.token);
    await t.platform.realtime!.hub.settle();
    const resumed = await sse('subscribe=toDos', ann.token, { 'last-event-id': last });
    await until(() => resumed.changes().length >= 20, 'the 20 missed changes').catch((error: unknown) => {
      console.log(JSON.stringify({ last, resumed: resumed.events }));
      throw error;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(resumed.changes().map((c) => c.record.title)).toEqual(Array.from({ length: 20 }, (_, i) => `resume ${i + 1}`));
    const ids = resumed.events.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    resumed.close();
    // The query form too, then past the 5 s retention of this test: reset.
    await new Promise((resolve) => setTimeout(resolve, 5500));
    const late = await sse(`subscribe=toDos&lastEventId=${last}`, ann.token);
    await until(() => late.events.some((e) => e.event === 'reset'), 'the reset');
    expect(late.changes()).toEqual([]);
    late.close();
  });
});

/** The app's end-user signing key, as the service reads it. */
async function appKey(t: TestPlatform, applicationId: string): Promise<Awaited<ReturnType<InstanceType<typeof import('../../src/runtime/app-keys.ts').AppKeys>['jwtKey']>>> {
  const { AppKeys } = await import('../../src/runtime/app-keys.ts');
  const { TEST_MASTER_KEY } = await import('../support/databases.ts');
  return new AppKeys(t.database.db, Buffer.from(TEST_MASTER_KEY, 'base64')).jwtKey(applicationId);
}
