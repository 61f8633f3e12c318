// `POST /batch` over real HTTP on PGlite and PostgreSQL: every request under its own rules as the
// caller, in one transaction (a later request reads an earlier one's write), all or nothing with
// the failing index, and one realtime event per record written, announced after the commit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { SseClient, until } from '../realtime/clients.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type Page, type ProblemBody, type Rec } from './served-app.ts';

interface BatchAnswer {
  responses: Array<{ status: number; body: Rec & Partial<Page> }>;
}

describe.each(await availableDrivers())('POST /batch on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let ann: { token: string; user: Rec };
  let bob: { token: string; user: Rec };
  const open: SseClient[] = [];

  const countOf = async (token: string) => (await api.get<Page>('/toDos?limit=0', token)).body.total;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Batch');
    const app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    ann = await api.signup('Ann', 'ann@example.test');
    bob = await api.signup('Bob', 'bob@example.test');
  }, 120_000);
  afterAll(async () => {
    for (const client of open) client.close();
    await t?.close();
  });

  it('runs every request in order in one transaction: a later one reads and changes what an earlier one wrote', async () => {
    const before = await countOf(ann.token);
    const reply = await api.post<BatchAnswer>(
      '/batch',
      {
        requests: [
          { method: 'POST', path: '/toDos', body: { title: 'first', status: 'open', user: ann.user.id } },
          { method: 'POST', path: '/toDos', body: { title: 'second', status: 'open', user: ann.user.id } },
          { method: 'GET', path: '/toDos?sort=title&filter=record.title%20%3D%3D%20%22second%22' },
        ],
      },
      ann.token,
    );
    expect(reply.status).toBe(200);
    const [first, second, list] = reply.body.responses;
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ title: 'first', user: expect.objectContaining({ id: ann.user.id }) });
    expect(second.status).toBe(201);
    expect(list.status).toBe(200);
    expect(list.body.items!.map((item) => item.id)).toEqual([second.body.id]);
    expect(await countOf(ann.token)).toBe(before + 2);

    const changes = await api.post<BatchAnswer>(
      '/batch',
      {
        requests: [
          { method: 'PATCH', path: `/toDos/${first.body.id}`, body: { status: 'done' } },
          { method: 'GET', path: `/toDos/${first.body.id}?fields=status` },
          { method: 'DELETE', path: `/toDos/${second.body.id}` },
        ],
      },
      ann.token,
    );
    expect(changes.status).toBe(200);
    expect(changes.body.responses.map((r) => r.status)).toEqual([200, 200, 204]);
    expect(changes.body.responses[1].body).toEqual({ id: first.body.id, status: 'done' });
    expect(changes.body.responses[2].body).toBeNull();
    expect((await api.get(`/toDos/${second.body.id}`, ann.token)).status).toBe(404);
  });

  it('writes nothing when the third request fails, and answers its status with its index', async () => {
    const before = await countOf(ann.token);
    const reply = await api.post<ProblemBody & { index: number }>(
      '/batch',
      {
        requests: [
          { method: 'POST', path: '/toDos', body: { title: 'kept?', status: 'open', user: ann.user.id } },
          { method: 'POST', path: '/toDos', body: { title: 'kept too?', status: 'open', user: ann.user.id } },
          { method: 'POST', path: '/toDos', body: { status: 'open', user: ann.user.id } },
          { method: 'POST', path: '/toDos', body: { title: 'never run', status: 'open', user: ann.user.id } },
        ],
      },
      ann.token,
    );
    expect(reply.status).toBe(422);
    expect(reply.contentType).toContain('application/problem+json');
    expect(reply.body.index).toBe(2);
    expect(reply.body.errors.map((e) => e.path)).toContain('/title');
    expect(await countOf(ann.token)).toBe(before);
  });

  it('answers a run of creates (written by one statement) each as its own POST and GET answer it', async () => {
    const single = await api.post<Rec>('/toDos', { title: 'alone', status: 'open', user: ann.user.id, deadline: '2031-02-03T04:05:06.000Z' }, ann.token);
    expect(single.status).toBe(201);
    const reply = await api.post<BatchAnswer>(
      '/batch',
      {
        requests: [
          { method: 'POST', path: '/toDos', body: { title: 'run 1', status: 'open', user: ann.user.id, deadline: '2031-02-03T04:05:06.000Z' } },
          { method: 'POST', path: '/toDos', body: { title: 'run 2', status: 'done', user: ann.user.id, description: 'with a description' } },
          { method: 'POST', path: '/toDos', body: { title: 'run 3', status: 'open', user: ann.user.id } },
        ],
      },
      ann.token,
    );
    expect(reply.status).toBe(200);
    expect(reply.body.responses.map((r) => r.status)).toEqual([201, 201, 201]);
    for (const response of reply.body.responses) {
      const read = await api.get<Rec>(`/toDos/${response.body.id}`, ann.token);
      expect(response.body).toEqual(read.body);
    }
    // The same members, in the same order, as a single create answers.
    expect(Object.keys(reply.body.responses[0].body)).toEqual(Object.keys(single.body));
    expect(reply.body.responses[1].body).toMatchObject({ title: 'run 2', status: 'done', description: 'with a description' });
  });

  it('holds each request to its own rules as the caller: an end user cannot write for another one, and nothing is written', async () => {
    const before = await countOf(bob.token);
    const reply = await api.post<ProblemBody & { index: number }>(
      '/batch',
      {
        requests: [
          { method: 'POST', path: '/toDos', body: { title: 'bob own', status: 'open', user: bob.user.id } },
          { method: 'POST', path: '/toDos', body: { title: 'for ann', status: 'open', user: ann.user.id } },
        ],
      },
      bob.token,
    );
    expect(reply.status).toBe(403);
    expect(reply.body.index).toBe(1);
    expect(await countOf(bob.token)).toBe(before);
    // The administrator's batch bypasses the rules, as its single requests do.
    const admin = await api.post<BatchAnswer>('/batch', { requests: [{ method: 'POST', path: '/toDos', body: { title: 'by admin', status: 'open', user: bob.user.id } }] }, 'admin');
    expect(admin.status).toBe(200);
    expect(admin.body.responses[0].status).toBe(201);
    expect(await countOf(bob.token)).toBe(before + 1);
  });

  it('refuses a malformed batch, more than 100 requests, or a path outside the resource routes with 400/404 naming it', async () => {
    const notArray = await api.post<ProblemBody>('/batch', { requests: 'x' }, ann.token);
    expect(notArray.status).toBe(400);
    expect(notArray.body.errors[0].path).toBe('/requests');
    const tooMany = await api.post<ProblemBody>('/batch', { requests: Array.from({ length: 101 }, () => ({ method: 'GET', path: '/toDos' })) }, ann.token);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors[0].path).toBe('/requests');
    const badMethod = await api.post<ProblemBody>('/batch', { requests: [{ method: 'GET', path: '/toDos' }, { method: 'PUT', path: '/toDos' }] }, ann.token);
    expect(badMethod.status).toBe(400);
    expect(badMethod.body.errors[0].path).toBe('/requests/1/method');
    const nested = await api.post<ProblemBody & { index: number }>('/batch', { requests: [{ method: 'POST', path: '/batch', body: { requests: [] } }] }, ann.token);
    expect(nested.status).toBe(404);
    expect(nested.body.index).toBe(0);
  });

  it('announces one realtime event per record written, after the commit; a failed batch announces nothing', async () => {
    const stream = await SseClient.open(`${api.base}/realtime?subscribe=toDos`, { authorization: `Bearer ${ann.token}` });
    open.push(stream);
    expect(stream.status).toBe(200);
    const failed = await api.post('/batch', { requests: [{ method: 'POST', path: '/toDos', body: { title: 'rolled back', status: 'open', user: ann.user.id } }, { method: 'DELETE', path: '/toDos/00000000-0000-4000-8000-000000000000' }] }, ann.token);
    expect(failed.status).toBe(404);
    const reply = await api.post<BatchAnswer>(
      '/batch',
      { requests: Array.from({ length: 5 }, (_, i) => ({ method: 'POST', path: '/toDos', body: { title: `live ${i}`, status: 'open', user: ann.user.id } })) },
      ann.token,
    );
    expect(reply.status).toBe(200);
    const ids = reply.body.responses.map((r) => r.body.id).sort();
    await until(() => stream.changes().length >= 5, 'five events', 30_000);
    // A moment for any extra (duplicate or rolled-back) event to arrive too.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const changes = stream.changes();
    expect(changes.map((c) => c.action)).toEqual(['create', 'create', 'create', 'create', 'create']);
    expect(changes.map((c) => c.id).sort()).toEqual(ids);
    expect(changes.some((c) => c.record.title === 'rolled back')).toBe(false);
  }, 60_000);
});
