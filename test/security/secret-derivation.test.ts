// Secrets as a privilege, as the attacks of the outside review: an editor (who may neither read
// nor write secrets) put `secrets.TOKEN.split('')` into an action, ran it as an action test and
// got the secret back one character per item (redaction matched the whole value only), and
// published it behind a trigger that answered anonymous callers the same. Now a secret may appear
// only whole, or joined with `+`, in http.request's url, headers and body: anything else is
// refused at save (409 at the expression's pointer, naming the rule), so there is nothing to test
// or to publish; a legitimate `'Bearer ' + secrets.TOKEN` header still reaches its server.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Action, AppDefinition } from '../../src/definition/schema.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { runnerScode } from '../runtime-runs/support.ts';
import { apiPath, publishAndWait } from '../frontend/published.ts';
import { addBuilder, type TestBuilder } from '../access/builders-support.ts';

type Problem = { status: number; detail: string; errors: Array<{ path: string; message: string }> };
type AppReply = { id: string; serverVersion: string; scode: AppDefinition };

const RULE = /secrets\.NAME may appear only as a whole value, or joined to strings with \+, in the url, headers or body bindParams of http\.request/;

const leak = (bindParams: Record<string, string>, effect = 'flow.set'): Action => ({
  id: 'urn:svc:action:leak',
  startEffectId: 'derive',
  effects: [
    { actionEffectId: 'derive', effect, params: effect === 'flow.set' ? { name: 'chars' } : { method: 'POST', url: 'http://127.0.0.1:9/' }, bindParams, next: 'answer' },
    { actionEffectId: 'answer', effect: 'flow.return', params: { status: 200 }, bindParams: { body: "{'chars': state.chars}" } },
  ],
});

const withLeak = (base: AppDefinition, action: Action): AppDefinition => {
  const scode = structuredClone(base);
  scode.actions.push(action);
  scode.triggers.push({ trigger: { id: 'urn:svc:trigger:leak', type: 'http', method: 'GET', path: '/leak' }, actionId: action.id, initialState: {}, validation: [], isPublic: true } as AppDefinition['triggers'][number]);
  return scode;
};

describe.each(await availableDrivers())('secrets may not be derived from, on %s', (driver) => {
  const token = `tok-${randomUUID()}`;
  const received: IncomingHttpHeaders[] = [];
  let server: Server;
  let serviceUrl: string;
  let t: TestPlatform;
  let tenant: Tenant;
  let editor: TestBuilder;
  let app: AppReply;
  const previousAllow = process.env.APPBUILDER_HTTP_ALLOW;

  beforeAll(async () => {
    server = createServer((request, response) => {
      received.push(request.headers);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    serviceUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    process.env.APPBUILDER_HTTP_ALLOW = '127.0.0.1';
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Secret derivation');
    editor = await addBuilder(tenant.api, 'editor', null, 'hostile editor');
    app = await createTodoApp(tenant, runnerScode());
    expect((await tenant.api.request('PUT', `/v1/applications/${app.id}/secrets/TOKEN`, { body: { value: token } })).status).toBe(201);
    await publishAndWait(t, tenant, app.id, app.serverVersion);
  }, 180_000);
  afterAll(async () => {
    if (previousAllow === undefined) delete process.env.APPBUILDER_HTTP_ALLOW;
    else process.env.APPBUILDER_HTTP_ALLOW = previousAllow;
    await t?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it("refuses the editor's secrets.TOKEN.split('') at save, so no action test and no published trigger returns it", async () => {
    const base = (await editor.api.get<AppReply>(`/v1/applications/${app.id}`)).body.scode;
    const index = base.actions.length;
    const attempts: Array<[Action, string]> = [
      [leak({ value: "secrets.TOKEN.split('')" }), 'value'],
      [leak({ value: 'secrets.TOKEN' }), 'value'],
      [leak({ body: "{'chars': secrets.TOKEN.split('')}" }, 'http.request'), 'body'],
      [leak({ headers: "{'x': secrets.TOKEN.contains('a') ? 'yes' : 'no'}" }, 'http.request'), 'headers'],
      [leak({ url: "'http://127.0.0.1:9/' + string(size(secrets.TOKEN))" }, 'http.request'), 'url'],
    ];
    for (const [action, param] of attempts) {
      const saved = await editor.api.request<Problem>('PUT', `/v1/applications/${app.id}/scode`, { body: withLeak(base, action) });
      expect(saved.status, action.effects[0].bindParams![param]).toBe(409);
      const error = saved.body.errors.find((e) => e.path === `/actions/${index}/effects/0/bindParams/${param}`);
      expect(error?.message).toMatch(RULE);
    }
    // Nothing of it was saved: the action test and the published trigger do not exist.
    const tested = await editor.api.post<Problem>(`/v1/applications/${app.id}/actions/${encodeURIComponent('urn:svc:action:leak')}/test`, {});
    expect(tested.status).toBe(404);
    expect(tested.text).not.toContain(token.slice(4, 12));
    const published = await editor.api.post(`/v1/applications/${app.id}/publish`, { serverVersion: app.serverVersion });
    expect(published.status, published.text).toBeLessThan(300);
    const anonymous = await fetch(`${t.baseUrl}${apiPath(t, app.id, app.serverVersion)}/leak`);
    expect(anonymous.status).toBe(404);
    expect(await anonymous.text()).not.toContain(token.slice(4, 12));
  });

  it("keeps a legitimate 'Bearer ' + secrets.TOKEN header working (save, action test, the server gets the value; the answer holds none of it)", async () => {
    const base = (await editor.api.get<AppReply>(`/v1/applications/${app.id}`)).body.scode;
    const call: Action = {
      id: 'urn:svc:action:call',
      startEffectId: 'call',
      effects: [
        {
          actionEffectId: 'call',
          effect: 'http.request',
          params: { method: 'POST', url: serviceUrl },
          bindParams: { headers: "{'authorization': 'Bearer ' + secrets.TOKEN, 'x-key': secrets.TOKEN}", body: "{'key': secrets.TOKEN, 'n': 1}" },
        },
      ],
      bindReturnValue: 'results.call.status',
    };
    const scode = structuredClone(base);
    scode.actions.push(call);
    const saved = await editor.api.request('PUT', `/v1/applications/${app.id}/scode`, { body: scode });
    expect(saved.status, saved.text).toBe(200);
    const tested = await editor.api.post<{ status: string; result: unknown }>(`/v1/applications/${app.id}/actions/${encodeURIComponent(call.id)}/test`, {});
    expect(tested.status, tested.text).toBe(200);
    expect(tested.body.status).toBe('succeeded');
    expect(tested.body.result).toBe(200);
    expect(received.at(-1)?.authorization).toBe(`Bearer ${token}`);
    expect(received.at(-1)?.['x-key']).toBe(token);
    expect(tested.text).not.toContain(token);
  });
});
