// What an open SSE stream keeps (issue 24: 10,000 subscribers in < 300 MB): once its head is
// written, the stream holds its socket only. Node's ServerResponse and Fastify's request and reply
// (and with them the request's logger) can be collected while the stream goes on delivering; they
// were ~4 KB a subscriber. Found through the diagnostics channels Node and Fastify publish each
// request on, held weakly, after a full garbage collection.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type Rec } from '../runtime/served-app.ts';
import { SseClient, until } from './clients.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The objects of requests whose path contains `/realtime`, held weakly. */
class Watched {
  responses: Array<WeakRef<object>> = [];
  replies: Array<WeakRef<object>> = [];
  private readonly onNode = (message: unknown) => {
    const { request, response } = message as { request: { url?: string }; response: object };
    if (request.url?.includes('/realtime')) this.responses.push(new WeakRef(response));
  };
  private readonly onFastify = (message: unknown) => {
    const { request, reply } = message as { request: { url: string }; reply: object };
    if (request.url.includes('/realtime')) this.replies.push(new WeakRef(reply));
  };

  constructor() {
    subscribe('http.server.request.start', this.onNode);
    subscribe('tracing:fastify.request.handler:start', this.onFastify);
  }

  close(): void {
    unsubscribe('http.server.request.start', this.onNode);
    unsubscribe('tracing:fastify.request.handler:start', this.onFastify);
  }
}

describe('an open SSE stream (PGlite)', () => {
  let t: TestPlatform;
  let api: ServedApi;
  let ann: { token: string; user: Rec };
  const watched = new Watched();

  beforeAll(async () => {
    t = await startTestPlatform('pglite');
    const tenant = await createTenant(t, 'Stream memory');
    const app = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, app.id);
    api = new ServedApi(t, tenant, app.id, app.serverVersion);
    ann = await api.signup('Ann', 'ann@example.test');
  }, 120_000);
  afterAll(async () => {
    watched.close();
    await t?.close();
  });

  it("keeps neither Node's response nor Fastify's request and reply, and still delivers", async () => {
    const stream = await SseClient.open(`${api.base}/realtime?subscribe=toDos`, { authorization: `Bearer ${ann.token}` });
    try {
      expect(stream.status).toBe(200);
      await until(() => stream.comments > 0, 'the stream to open');
      expect(watched.responses.length, 'the stream request was seen on Node\'s channel').toBe(1);
      expect(watched.replies.length, 'and on Fastify\'s').toBe(1);
      for (let i = 0; i < 3; i++) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(watched.responses[0].deref(), 'the ServerResponse was collected').toBeUndefined();
      expect(watched.replies[0].deref(), 'the Fastify reply (and its request) was collected').toBeUndefined();

      const created = await api.post('/toDos', { title: 'after the collection', status: 'open', user: ann.user.id }, ann.token);
      expect(created.status).toBe(201);
      await until(() => stream.events.some((e) => e.data.record?.id === created.body.id), 'the change to arrive');
      expect(stream.events.find((e) => e.data.record?.id === created.body.id)?.event).toBe('create');
    } finally {
      stream.close();
    }
  }, 60_000);
});
