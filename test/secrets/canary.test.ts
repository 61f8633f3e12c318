// The canary (issue 12, DESIGN §11): a secret with a unique value is sent by an action in
// http.request headers to a local service, which receives the real value and echoes it back in
// its answer, once failing and once succeeding. The action fails with the echoed value in its
// message the first time and returns it the second. Afterwards the canary is searched for in a
// dump of every table of the database (except the one ciphertext column), the server log, every
// run record and every API answer: it is nowhere.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Action, AppDefinition } from '../../src/definition/schema.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { runnerScode } from '../runtime-runs/support.ts';
import { apiPath, publishAndWait } from '../frontend/published.ts';

const TRIGGER = 'urn:svc:trigger:charge';

/** Calls the payment service with the key; a refusal becomes a failure quoting its answer. */
const charge: Action = {
  id: 'urn:svc:action:charge',
  startEffectId: 'call',
  effects: [
    {
      actionEffectId: 'call',
      effect: 'http.request',
      params: { method: 'POST' },
      bindParams: {
        url: 'state.url',
        headers: "{'x-api-key': secrets.PAYMENT_KEY, 'authorization': 'Bearer ' + secrets.PAYMENT_KEY, 'x-region': env.REGION}",
        body: "{'amount': 5, 'key': secrets.PAYMENT_KEY}",
      },
      next: 'check',
    },
    { actionEffectId: 'check', effect: 'flow.if', params: { else: 'refused' }, bindParams: { condition: 'results.call.status == 200' }, next: 'answer' },
    {
      actionEffectId: 'refused',
      effect: 'flow.fail',
      params: { status: 502, code: 'upstream_refused' },
      // The service's answer quotes the key it received: the message holds the secret without reading it.
      bindParams: { message: "'the payment service said: ' + results.call.body.error" },
    },
    { actionEffectId: 'answer', effect: 'flow.return', params: { status: 200 }, bindParams: { body: "{'upstream': results.call.body, 'region': env.REGION}" } },
  ],
};

function scode(): AppDefinition {
  return runnerScode((d) => {
    d.actions.push(charge);
    d.triggers.push({
      trigger: { id: TRIGGER, type: 'http', method: 'POST', path: '/charge' },
      actionId: charge.id,
      initialState: { url: 'request.body.url' },
      validation: [],
    });
  });
}

/** Every row of every table of the database as JSON text, the ciphertext column left out. */
async function dumpDatabase(t: TestPlatform): Promise<string> {
  const db = t.platform.db.kysely;
  const tables = await sql<{ schema: string; name: string }>`
    select table_schema as schema, table_name as name from information_schema.tables
    where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`.execute(db);
  expect(tables.rows.length).toBeGreaterThan(10);
  const parts: string[] = [];
  for (const { schema, name } of tables.rows) {
    const except = schema === 'appbuilder' && name === 'config_values' ? ['sealed_value'] : [];
    const rows = await sql<{ row: string }>`select row_to_json(t)::text as row from ${sql.table(`${schema}.${name}`)} t`.execute(db);
    for (const { row } of rows.rows) {
      const value = JSON.parse(row) as Record<string, unknown>;
      for (const column of except) delete value[column];
      parts.push(`${schema}.${name} ${JSON.stringify(value)}`);
    }
  }
  return parts.join('\n');
}

describe.each(await availableDrivers())('the canary secret, on %s', (driver) => {
  const canary = `canary-${randomUUID()}`;
  const received: IncomingHttpHeaders[] = [];
  const receivedBodies: string[] = [];
  const answers: string[] = [];
  const log: string[] = [];
  let server: Server;
  let serviceUrl: string;
  let t: TestPlatform;
  let tenant: Tenant;
  let appId: string;
  let path: string;
  const previousAllow = process.env.APPBUILDER_HTTP_ALLOW;

  /** Every management answer is kept for the search. */
  const call = async (method: string, url: string, body?: unknown) => {
    const reply = await tenant.api.request(method, url, body === undefined ? {} : { body });
    answers.push(`${method} ${url} ${reply.status} ${JSON.stringify([...reply.headers])} ${reply.text}`);
    return reply;
  };

  beforeAll(async () => {
    // The payment service double: it echoes the key it received, refusing the first call.
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push(request.headers);
        receivedBodies.push(body);
        const key = String(request.headers['x-api-key']);
        const first = received.length === 1;
        response.writeHead(first ? 500 : 200, { 'content-type': 'application/json', 'x-echo-key': key });
        response.end(JSON.stringify(first ? { error: `key ${key} is suspended` } : { ok: true, echo: key }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    serviceUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/charge`;
    process.env.APPBUILDER_HTTP_ALLOW = '127.0.0.1';
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => log.push(chunk.toString()));
    t = await startTestPlatform(driver, {}, stream);
    tenant = await createTenant(t, 'Canary');
    const app = await createTodoApp(tenant, scode());
    appId = app.id;
    expect((await call('PUT', `/v1/applications/${appId}/secrets/PAYMENT_KEY`, { value: canary })).status).toBe(201);
    expect((await call('PUT', `/v1/projects/${tenant.projectId}/variables/REGION`, { value: 'eu-west' })).status).toBe(201);
    await publishAndWait(t, tenant, appId, app.serverVersion);
    path = apiPath(t, appId, app.serverVersion);
  }, 120_000);

  afterAll(async () => {
    if (previousAllow === undefined) delete process.env.APPBUILDER_HTTP_ALLOW;
    else process.env.APPBUILDER_HTTP_ALLOW = previousAllow;
    await t?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('sends the real value, fails once, succeeds once, and the canary is nowhere else', async () => {
    const chargeOnce = async () => {
      const response = await fetch(`${t.baseUrl}${path}/charge`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: serviceUrl }) });
      const text = await response.text();
      answers.push(`POST /charge ${response.status} ${JSON.stringify([...response.headers])} ${text}`);
      return { status: response.status, text, runId: response.headers.get('x-run-id') };
    };
    const failed = await chargeOnce();
    const succeeded = await chargeOnce();

    // The service received the real value, in both headers and the body, each time.
    expect(received).toHaveLength(2);
    for (const headers of received) {
      expect(headers['x-api-key']).toBe(canary);
      expect(headers.authorization).toBe(`Bearer ${canary}`);
      expect(headers['x-region']).toBe('eu-west');
    }
    expect(receivedBodies.every((body) => body.includes(canary))).toBe(true);

    // The answers say what happened, with the value redacted (this could fail: the value was in them).
    expect(failed.status).toBe(502);
    expect(failed.text).toContain('[redacted] is suspended');
    expect(succeeded.status).toBe(200);
    expect(JSON.parse(succeeded.text)).toEqual({ upstream: { ok: true, echo: '[redacted]' }, region: 'eu-west' });

    // Every run record through the management API (the HTTP trigger's runs are stored just after the request).
    let runs: { items: Array<{ id: string; status: string }> } = { items: [] };
    for (let i = 0; i < 100 && runs.items.length < 2; i++) {
      runs = (await call('GET', `/v1/applications/${appId}/runs?limit=100`)).body as typeof runs;
      if (runs.items.length < 2) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(runs.items.map((r) => r.status).sort()).toEqual(['failed', 'succeeded']);
    for (const run of runs.items) expect((await call('GET', `/v1/applications/${appId}/runs/${run.id}`)).status).toBe(200);
    expect(runs.items.map((r) => r.id).sort()).toEqual([failed.runId, succeeded.runId].sort());
    // The rest of what the management API shows about the application and its configuration.
    for (const url of [
      `/v1/applications/${appId}`,
      `/v1/applications/${appId}/status`,
      `/v1/applications/${appId}/secrets`,
      `/v1/applications/${appId}/secrets/PAYMENT_KEY`,
      `/v1/applications/${appId}/variables`,
      `/v1/projects/${tenant.projectId}/variables`,
      `/v1/applications/${appId}/versions`,
    ]) {
      expect((await call('GET', url)).status, url).toBe(200);
    }
    // A failed write of the secret does not echo it either.
    expect((await call('PUT', `/v1/applications/${appId}/variables/PAYMENT_KEY`, { value: canary })).status).toBe(409);

    const dump = await dumpDatabase(t);
    // The dump holds the runs (the search below could find the value there).
    expect(dump).toContain(String(failed.runId));
    expect(dump).toContain('upstream_refused');
    const serverLog = log.join('');
    expect(serverLog.length).toBeGreaterThan(0);

    const everything = { dump, serverLog, answers: answers.join('\n') };
    for (const [where, text] of Object.entries(everything)) {
      expect(text.includes(canary), `the canary appears in ${where}`).toBe(false);
    }
    expect(answers.join('\n')).toContain('[redacted]');
  });
});
