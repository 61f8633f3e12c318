// Issue 18 item 7, the attacker's requests against what run records keep: a 147 KB value sent to
// an action came back whole in its error and its stored run (and in a failed action test), and
// passwords, tokens and the headers of http.request responses were stored as sent. Now every
// value kept in a run record, and every error message, is cut to ~1 KB with a visible mark, and
// secret-named fields and all http.request header values are stored as "[redacted]".
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Action, AppDefinition, Trigger } from '../../src/definition/schema.ts';
import type { Run } from '../../src/runtime/runs/store.ts';
import { MAX_STORED_VALUE_BYTES, REDACTED } from '../../src/runtime/runs/stored-run.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type Tenant } from '../support/tenant.ts';
import { publishApp, runnerScode, type Published } from '../runtime-runs/support.ts';

const BIG = 'x'.repeat(147_000);
const MARK = '…(truncated, 147000 bytes)';

/** Copies the big value into the state, then fails with it as the message. */
const echoFail: Action = {
  id: 'urn:svc:action:echo-fail',
  startEffectId: 'copy',
  effects: [
    { actionEffectId: 'copy', effect: 'flow.set', params: { name: 'copy' }, bindParams: { value: 'state.big' }, next: 'fail' },
    { actionEffectId: 'fail', effect: 'flow.fail', params: { status: 422, code: 'too_big' }, bindParams: { message: 'state.big' } },
  ],
};

/** Calls a service that answers a cookie and tokens, keeps a credential map, returns the password. */
const secrets: Action = {
  id: 'urn:svc:action:secrets',
  startEffectId: 'call',
  effects: [
    { actionEffectId: 'call', effect: 'http.request', params: { method: 'GET', headers: { authorization: 'Bearer outbound-secret' } }, bindParams: { url: 'state.url' }, next: 'keep' },
    {
      actionEffectId: 'keep',
      effect: 'flow.set',
      params: { name: 'credentials' },
      bindParams: { value: "{'apiKey': 'key-123', 'Authorization': 'Basic abc', 'clientSecret': 'shh', 'name': 'visible'}" },
    },
  ],
  bindReturnValue: "{'password': state.password, 'visible': 'yes', 'service': results.call.body}",
};

const trigger = (id: string, path: string, actionId: string, initialState: Record<string, string>): Trigger => ({
  trigger: { id: `urn:svc:trigger:${id}`, type: 'http', method: 'POST', path },
  actionId,
  initialState,
  validation: [],
});

function scode(): AppDefinition {
  return runnerScode((d) => {
    d.actions.push(echoFail, secrets);
    d.triggers.push(
      trigger('echo-fail', '/echo-fail', echoFail.id, { big: 'request.body.big' }),
      trigger('secrets', '/secrets', secrets.id, { password: 'request.body.password', url: 'request.body.url' }),
    );
  });
}

describe.each(await availableDrivers())('run records on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: Published;
  let service: Server;
  let serviceUrl: string;
  const previousAllow = process.env.APPBUILDER_HTTP_ALLOW;

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${t.baseUrl}${app.path}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: response.status, text: await response.text() };
  };
  const lastRun = async (triggerId: string): Promise<Run> => {
    const page = await tenant.api.get<{ items: Run[] }>(`/v1/applications/${app.id}/runs?triggerId=${encodeURIComponent(triggerId)}&limit=1`);
    expect(page.status).toBe(200);
    return page.body.items[0];
  };

  beforeAll(async () => {
    service = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.setHeader('set-cookie', 'session=cookie-value-123');
      res.setHeader('x-request-id', 'plain-header-value');
      res.end(JSON.stringify({ token: 'tok-123', nested: { password: 'pw-456' }, ok: 1 }));
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}/`;
    process.env.APPBUILDER_HTTP_ALLOW = '127.0.0.1';
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Run records');
    app = await publishApp(t, tenant, scode());
  }, 120_000);
  afterAll(async () => {
    if (previousAllow === undefined) delete process.env.APPBUILDER_HTTP_ALLOW;
    else process.env.APPBUILDER_HTTP_ALLOW = previousAllow;
    service?.closeAllConnections();
    service?.close();
    await t?.close();
  });

  it('cuts a 147 KB value to ~1 KB in the answer’s error and everywhere in the stored run, visibly', async () => {
    const answer = await post('/echo-fail', { big: BIG });
    expect(answer.status).toBe(422);
    expect(answer.text.length).toBeLessThan(4 * MAX_STORED_VALUE_BYTES);
    expect(JSON.parse(answer.text).detail).toMatch(/^x{1024}…\(truncated, 147000 bytes\)$/);

    const run = await lastRun('urn:svc:trigger:echo-fail');
    expect(JSON.stringify(run).length).toBeLessThan(8 * MAX_STORED_VALUE_BYTES);
    expect(run.input.initialState.big).toBe(`${'x'.repeat(1024)}${MARK}`);
    expect(run.input.request?.body).toMatch(/^\{"big":"x+…\(truncated, 147010 bytes\)$/);
    expect(run.steps[0].output).toBe(`${'x'.repeat(1024)}${MARK}`);
    expect(run.steps[1].error?.message).toBe(`${'x'.repeat(1024)}${MARK}`);
    expect(run.error).toMatchObject({ code: 'too_big', status: 422, message: `${'x'.repeat(1024)}${MARK}` });
  });

  it('cuts the same value in a failed action test (management API), which echoed 147 KB', async () => {
    const tested = await tenant.api.post<Run>(`/v1/applications/${app.id}/actions/${encodeURIComponent(echoFail.id)}/test`, { initialState: { big: BIG } });
    expect(tested.status).toBe(200);
    expect(tested.text.length).toBeLessThan(8 * MAX_STORED_VALUE_BYTES);
    expect(tested.body.status).toBe('failed');
    expect(tested.body.error?.message.endsWith(MARK)).toBe(true);
    expect(tested.body.input.initialState.big).toBe(`${'x'.repeat(1024)}${MARK}`);
  });

  it('stores secret-named fields and every http.request header value as [redacted]', async () => {
    const answer = await post('/secrets', { password: 'hunter2', url: serviceUrl }, { 'x-api-token': 'header-token-789' });
    expect(answer.status).toBe(200);
    // The answer is the app's own business: it is not a record.
    expect(JSON.parse(answer.text)).toMatchObject({ password: 'hunter2', visible: 'yes' });

    const run = await lastRun('urn:svc:trigger:secrets');
    const stored = JSON.stringify(run);
    for (const secret of ['hunter2', 'tok-123', 'pw-456', 'cookie-value-123', 'plain-header-value', 'key-123', 'Basic abc', 'shh', 'header-token-789', 'outbound-secret']) {
      expect(stored, secret).not.toContain(secret);
    }
    expect(run.input.initialState).toMatchObject({ password: REDACTED, url: serviceUrl });
    expect(run.input.request).toMatchObject({ body: { password: REDACTED, url: serviceUrl }, headers: { 'x-api-token': REDACTED } });
    const call = run.steps.find((s) => s.actionEffectId === 'call')!;
    expect(call.output).toMatchObject({ status: 200, headers: { 'set-cookie': REDACTED, 'x-request-id': REDACTED, 'content-type': REDACTED }, body: { token: REDACTED, nested: { password: REDACTED }, ok: 1 } });
    expect(run.steps.find((s) => s.actionEffectId === 'keep')!.output).toEqual({ apiKey: REDACTED, Authorization: REDACTED, clientSecret: REDACTED, name: 'visible' });
    expect(run.result).toMatchObject({ password: REDACTED, visible: 'yes', service: { token: REDACTED, ok: 1 } });
  });
});
