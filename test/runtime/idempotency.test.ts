// `Idempotency-Key` over real HTTP on PGlite and PostgreSQL (DESIGN §8): a retried write with the
// same key answers the first result and changes nothing more; the same key with another body is
// refused (422 naming the header); keys of different callers never meet; a failed write frees its
// key; a retried publish queues one deployment.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type Page, type ProblemBody, type Rec } from './served-app.ts';

interface Sent {
  status: number;
  body: unknown;
  replayed: boolean;
}

describe.each(await availableDrivers())('Idempotency-Key on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let app: AppReply;
  let ann: { token: string; user: Rec };
  let bob: { token: string; user: Rec };

  const send = async (method: string, path: string, token: string, key: string, body?: unknown): Promise<Sent> => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'idempotency-key': key };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(api.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, replayed: response.headers.get('idempotent-replayed') === 'true' };
  };
  const titled = async (title: string, token: string) =>
    (await api.get<Page>(`/toDos?limit=100&filter=${encodeURIComponent(`record.title == "${title}"`)}`, token)).body.items;

  /** Sends a request and drops its answer unread: the client never learns what happened. */
  const sendAndLoseAnswer = (path: string, token: string, key: string, body: unknown) =>
    new Promise<void>((resolve, reject) => {
      const url = new URL(api.base + path);
      const text = JSON.stringify(body);
      const req = httpRequest(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'idempotency-key': key, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      });
      req.on('response', (res) => {
        res.destroy();
        req.destroy();
        resolve();
      });
      req.on('error', reject);
      req.end(text);
    });

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Idempotency');
    app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    ann = await api.signup('Ann', 'ann@example.test');
    bob = await api.signup('Bob', 'bob@example.test');
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('answers a retried create whose first answer was lost with the first result: one record', async () => {
    const body = { title: 'lost answer', status: 'open', user: ann.user.id };
    await sendAndLoseAnswer('/toDos', ann.token, 'create-1', body);
    const retried = await send('POST', '/toDos', ann.token, 'create-1', body);
    expect(retried.status).toBe(201);
    expect(retried.replayed).toBe(true);
    const again = await send('POST', '/toDos', ann.token, 'create-1', body);
    expect(again.body).toEqual(retried.body);
    const rows = await titled('lost answer', ann.token);
    expect(rows).toHaveLength(1);
    expect(rows[0].id).toBe((retried.body as Rec).id);
  });

  it('runs two copies of one keyed create sent together once', async () => {
    const body = { title: 'raced', status: 'open', user: ann.user.id };
    const answers = await Promise.all([send('POST', '/toDos', ann.token, 'race-1', body), send('POST', '/toDos', ann.token, 'race-1', body)]);
    // One ran; the other answered the first result or was told to retry (409): never a second record.
    expect(answers.map((a) => a.status).sort()).toEqual(expect.arrayContaining([201]));
    for (const answer of answers) expect([201, 409]).toContain(answer.status);
    expect(await titled('raced', ann.token)).toHaveLength(1);
    const retried = await send('POST', '/toDos', ann.token, 'race-1', body);
    expect(retried.status).toBe(201);
    expect(await titled('raced', ann.token)).toHaveLength(1);
  });

  it('refuses the same key with another body (422 naming the header) and writes nothing', async () => {
    const first = await send('POST', '/toDos', ann.token, 'reused', { title: 'reused one', status: 'open', user: ann.user.id });
    expect(first.status).toBe(201);
    const other = await send('POST', '/toDos', ann.token, 'reused', { title: 'reused two', status: 'open', user: ann.user.id });
    expect(other.status).toBe(422);
    expect((other.body as ProblemBody).errors[0].path).toBe('headers/Idempotency-Key');
    expect(await titled('reused two', ann.token)).toHaveLength(0);
  });

  it('keeps keys of different callers apart', async () => {
    const a = await send('POST', '/toDos', ann.token, 'shared-key', { title: 'per caller', status: 'open', user: ann.user.id });
    const b = await send('POST', '/toDos', bob.token, 'shared-key', { title: 'per caller', status: 'open', user: bob.user.id });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.replayed).toBe(false);
    expect((a.body as Rec).id).not.toBe((b.body as Rec).id);
  });

  it('frees the key of a refused write: the corrected request with the same key runs', async () => {
    const refused = await send('POST', '/toDos', ann.token, 'fix-me', { title: 'refused', status: 'not a status', user: ann.user.id });
    expect(refused.status).toBe(422);
    const fixed = await send('POST', '/toDos', ann.token, 'fix-me', { title: 'refused', status: 'open', user: ann.user.id });
    expect(fixed.status).toBe(201);
    expect(fixed.replayed).toBe(false);
    expect(await titled('refused', ann.token)).toHaveLength(1);
  });

  it('answers a retried update, delete and batch with their first results', async () => {
    const created = await send('POST', '/toDos', ann.token, 'u-create', { title: 'to change', status: 'open', user: ann.user.id });
    const id = (created.body as Rec).id;
    const patched = await send('PATCH', `/toDos/${id}`, ann.token, 'u-patch', { status: 'done' });
    expect(patched.status).toBe(200);
    expect((await send('PATCH', `/toDos/${id}`, ann.token, 'u-patch', { status: 'done' })).body).toEqual(patched.body);

    const batch = { requests: [{ method: 'POST', path: '/toDos', body: { title: 'batched', status: 'open', user: ann.user.id } }] };
    const first = await send('POST', '/batch', ann.token, 'u-batch', batch);
    expect(first.status).toBe(200);
    const second = await send('POST', '/batch', ann.token, 'u-batch', batch);
    expect(second).toEqual({ ...first, replayed: true });
    expect(await titled('batched', ann.token)).toHaveLength(1);

    const deleted = await send('DELETE', `/toDos/${id}`, ann.token, 'u-delete');
    expect(deleted.status).toBe(204);
    const redeleted = await send('DELETE', `/toDos/${id}`, ann.token, 'u-delete');
    // Without the key the second delete would answer 404.
    expect(redeleted).toEqual({ status: 204, body: null, replayed: true });
  });

  it('refuses a key that is not 1 to 255 visible characters (400 naming the header)', async () => {
    const reply = await send('POST', '/toDos', ann.token, 'x'.repeat(256), { title: 'long key', status: 'open', user: ann.user.id });
    expect(reply.status).toBe(400);
    expect((reply.body as ProblemBody).errors[0].path).toBe('headers/Idempotency-Key');
    expect(await titled('long key', ann.token)).toHaveLength(0);
  });

  it('answers a retried publish with the first answer and queues one deployment', async () => {
    const deployments = async () => (await tenant.api.get<AppReply>(`/v1/applications/${app.id}`)).body.status.jobs.filter((j) => j.jobType === 'deployment').length;
    const before = await deployments();
    const first = await tenant.api.post<AppReply>(`/v1/applications/${app.id}/publish`, {}, { 'idempotency-key': 'publish-1' });
    expect(first.status).toBe(202);
    const retried = await tenant.api.post<AppReply>(`/v1/applications/${app.id}/publish`, {}, { 'idempotency-key': 'publish-1' });
    expect(retried.status).toBe(202);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.text).toBe(first.text);
    expect(await deployments()).toBe(before + 1);
    const other = await tenant.api.post<AppReply>(`/v1/applications/${app.id}/publish`, { serverVersion: '9.9.9' }, { 'idempotency-key': 'publish-1' });
    expect(other.status).toBe(422);
  });
});
