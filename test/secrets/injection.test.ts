// Injection (DESIGN §11): `env.NAME` in expressions (strings, checked at save), `secrets.NAME` only
// in effect bindParams (409 elsewhere), publishing a version that reads unset names is refused
// naming them, and a changed value is seen by the next request without republishing: in the
// process that made the change, and in another process (a real `appbuilder serve --role runtime`
// on PostgreSQL) that only hears of it through NOTIFY.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Action, AppDefinition } from '../../src/definition/schema.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { runnerScode, signup } from '../runtime-runs/support.ts';
import { apiPath, publishAndWait } from '../frontend/published.ts';
import { freePort } from '../support/ports.ts';

const BIN = fileURLToPath(new URL('../../bin/appbuilder.js', import.meta.url));

/** A local service that answers the length of the x-token header it receives (never the value). */
let measureUrl = 'http://127.0.0.1:9/';

/**
 * Answers the greeting variable and the length of the token secret, as the measuring service
 * tells it: an action may send a secret out (http.request), never compute with it.
 */
const greet = (): Action => ({
  id: 'urn:svc:action:greet',
  startEffectId: 'measure',
  effects: [
    { actionEffectId: 'measure', effect: 'http.request', params: { method: 'GET', url: measureUrl }, bindParams: { headers: "{'x-token': secrets.TOKEN}" }, next: 'answer' },
    { actionEffectId: 'answer', effect: 'flow.return', params: { status: 200 }, bindParams: { body: "{'greeting': env.GREETING, 'tokenLength': results.measure.body.length}" } },
  ],
});

function scode(edit?: (d: AppDefinition) => void): AppDefinition {
  return runnerScode((d) => {
    d.actions.push(greet());
    d.triggers.push({ trigger: { id: 'urn:svc:trigger:greet', type: 'http', method: 'GET', path: '/greet' }, actionId: greet().id, initialState: {}, validation: [] });
    edit?.(d);
  });
}

interface Problem {
  status: number;
  detail: string;
  errors: Array<{ path: string; message: string }>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(50);
  }
}

describe.each(await availableDrivers())('env and secrets in expressions, on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let measure: Server;
  const previousAllow = process.env.APPBUILDER_HTTP_ALLOW;

  beforeAll(async () => {
    measure = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ length: String(request.headers['x-token'] ?? '').length }));
    });
    await new Promise<void>((resolve) => measure.listen(0, '127.0.0.1', resolve));
    measureUrl = `http://127.0.0.1:${(measure.address() as AddressInfo).port}/`;
    // The measuring service is on the loopback, which http.request refuses unless allowed (the runtime child inherits it).
    process.env.APPBUILDER_HTTP_ALLOW = '127.0.0.1';
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Injection');
  }, 120_000);
  afterAll(async () => {
    if (previousAllow === undefined) delete process.env.APPBUILDER_HTTP_ALLOW;
    else process.env.APPBUILDER_HTTP_ALLOW = previousAllow;
    await t?.close();
    await new Promise((resolve) => measure?.close(resolve));
  });

  it('refuses secrets outside bindParams and env used as a non-string at save (409 at the pointer)', async () => {
    const cases: Array<[string, (d: AppDefinition) => void, RegExp]> = [
      ['bindReturnValue', (d) => (d.actions.at(-1)!.bindReturnValue = 'secrets.TOKEN'), /secrets\.NAME is readable only in effect bindParams/],
      ['validation', (d) => d.triggers.at(-1)!.validation.push("secrets.TOKEN == 'x'"), /secrets\.NAME is readable only in effect bindParams/],
      ['initialState', (d) => (d.triggers.at(-1)!.initialState.leak = 'secrets.TOKEN'), /secrets\.NAME is readable only in effect bindParams/],
      ['bindParams', (d) => (d.actions.at(-1)!.effects[0].bindParams = { url: 'env.GREETING + 1' }), /string \+ int/],
    ];
    for (const [where, edit, message] of cases) {
      const reply = await tenant.api.post<Problem>('/v1/applications', { projectId: tenant.projectId, name: where, scode: scode(edit) });
      expect(reply.status, where).toBe(409);
      const error = reply.body.errors.find((e) => e.path.includes(where));
      expect(error?.message, where).toMatch(message);
    }
  });

  it('binds env in the write path too: a create rule and a defaultValue expression read the current values', async () => {
    const app = await createTodoApp(
      tenant,
      scode((d) => {
        const todo = d.models.find((m) => m.name === 'ToDo')!;
        todo.accessControl.rules[0].criteria = "auth != null && record.user == auth.id && (operation != 'create' || env.WRITES_OPEN == 'yes')";
        todo.fields.find((f) => f.name === 'status')!.defaultValue = { expression: 'env.DEFAULT_STATUS' };
      }),
    );
    const base = `/v1/applications/${app.id}/variables`;
    for (const [name, value] of [['WRITES_OPEN', 'no'], ['DEFAULT_STATUS', 'done'], ['GREETING', 'hi']]) {
      await tenant.api.request('PUT', `${base}/${name}`, { body: { value } });
    }
    await tenant.api.request('PUT', `/v1/applications/${app.id}/secrets/TOKEN`, { body: { value: 'abc' } });
    await publishAndWait(t, tenant, app.id, app.serverVersion);
    const path = apiPath(t, app.id, app.serverVersion);
    const ann = await signup(t, path, 'Ann');
    const create = async () => {
      const response = await fetch(`${t.baseUrl}${path}/toDos`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ann.token}` },
        body: JSON.stringify({ title: 'Write tests' }),
      });
      return { status: response.status, body: (await response.json()) as { status?: string } };
    };
    expect((await create()).status).toBe(403);
    await tenant.api.request('PUT', `${base}/WRITES_OPEN`, { body: { value: 'yes' } });
    const created = await create();
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('done');
    await tenant.api.request('PUT', `${base}/DEFAULT_STATUS`, { body: { value: 'open' } });
    expect((await create()).body.status).toBe('open');
  });

  it('refuses to publish a version that reads unset names (409 naming them); publishes once they are set', async () => {
    const app = await createTodoApp(tenant, scode());
    const refused = await tenant.api.post<Problem>(`/v1/applications/${app.id}/publish`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('variable GREETING');
    expect(refused.body.detail).toContain('secret TOKEN');
    expect(refused.body.errors.map((e) => e.path)).toEqual(expect.arrayContaining([expect.stringContaining('bindParams')]));
    // A variable named TOKEN does not stand in for the secret.
    await tenant.api.request('PUT', `/v1/projects/${tenant.projectId}/variables/GREETING`, { body: { value: 'hello from the project' } });
    const still = await tenant.api.post<Problem>(`/v1/applications/${app.id}/publish`, {});
    expect(still.status).toBe(409);
    expect(still.body.detail).not.toContain('GREETING');
    await tenant.api.request('PUT', `/v1/applications/${app.id}/secrets/TOKEN`, { body: { value: 'abc' } });
    await publishAndWait(t, tenant, app.id, app.serverVersion);

    const url = `${t.baseUrl}${apiPath(t, app.id, app.serverVersion)}/greet`;
    const read = async () => (await (await fetch(url)).json()) as { greeting: string; tokenLength: number };
    // The project's value, inherited.
    expect(await read()).toEqual({ greeting: 'hello from the project', tokenLength: 3 });
    // The application's own value wins, at the next request, without republishing.
    await tenant.api.request('PUT', `/v1/applications/${app.id}/variables/GREETING`, { body: { value: 'hello from the app' } });
    expect(await read()).toEqual({ greeting: 'hello from the app', tokenLength: 3 });
    await tenant.api.request('PUT', `/v1/applications/${app.id}/secrets/TOKEN`, { body: { value: 'abcdefgh' } });
    expect(await read()).toEqual({ greeting: 'hello from the app', tokenLength: 8 });
    // Deleting the application's own value falls back to the project's.
    await tenant.api.request('DELETE', `/v1/applications/${app.id}/variables/GREETING`);
    expect(await read()).toEqual({ greeting: 'hello from the project', tokenLength: 8 });

    if (driver !== 'postgres') return;
    // Another process: a runtime serving the same database, told of changes only by NOTIFY.
    const port = await freePort();
    let output = '';
    const child: ChildProcess = spawn(process.execPath, [BIN, 'serve', '--role', 'runtime'], {
      env: { ...process.env, DATABASE_URL: t.database.url!, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const other = `http://127.0.0.1:${port}${apiPath(t, app.id, app.serverVersion)}/greet`;
      const readOther = async () => {
        try {
          const response = await fetch(other);
          return response.ok ? ((await response.json()) as { greeting: string; tokenLength: number }) : null;
        } catch {
          return null;
        }
      };
      const first = await eventually(readOther, (v) => v !== null, 60_000);
      expect(first, output).toEqual({ greeting: 'hello from the project', tokenLength: 8 });
      // Cached there now: the changes below reach it only through the notice.
      expect(await readOther()).toEqual(first);
      await tenant.api.request('PUT', `/v1/projects/${tenant.projectId}/variables/GREETING`, { body: { value: 'changed elsewhere' } });
      await tenant.api.request('PUT', `/v1/applications/${app.id}/secrets/TOKEN`, { body: { value: 'abcdefghijklmnop' } });
      const changed = await eventually(readOther, (v) => v?.greeting === 'changed elsewhere' && v.tokenLength === 16);
      expect(changed).toEqual({ greeting: 'changed elsewhere', tokenLength: 16 });
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    // On PostgreSQL a second process starts (tsx, migrations, LISTEN): slow on a loaded machine.
  }, 240_000);
});

