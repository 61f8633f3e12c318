/**
 * `GET {app api}/client.ts` (issue 19): the typed client of a served version of the to-do
 * example, downloaded from the real server, type-checked with the project's `tsc` together with
 * a small program, compiled, and run with node against the live app (sign up, create, list,
 * log out and in, refresh, me, an HTTP trigger, realtime `subscribe`). Its types catch mistakes; a model renamed in a new
 * version renames the client's types and resource; the frontend bundle ships the same file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { apiPath, downloadBundle, publishAndWait } from '../frontend/published.ts';
import { compile, diagnostics, runNode, sseReaderProgram, subscribeProgram, taskProgram, todoProgram, wrongProgram } from './typed-client-program.ts';

const drivers = await availableDrivers();

describe.each(drivers)('typed client per version (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: AppReply;
  let work: string;
  let clientV1 = '';
  let etagV1 = '';
  const apiUrl = (version: string) => `${t.baseUrl}${apiPath(t, app.id, version)}`;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), `appbuilder-client-${driver}-`));
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Typed client');
    app = await createTodoApp(tenant);
    await publishAndWait(t, tenant, app.id, app.serverVersion);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('answers a dependency-free client, open like openapi.json, generated once (ETag, 304)', async () => {
    const response = await fetch(`${apiUrl(app.serverVersion)}/client.ts`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/typescript; charset=utf-8');
    clientV1 = await response.text();
    etagV1 = response.headers.get('etag') ?? '';
    expect(etagV1).toMatch(/^"[0-9a-f]{64}"$/);
    expect(clientV1).toContain(`export const SERVER_VERSION = "${app.serverVersion}";`);
    for (const member of ['export function createClient', 'export type ToDo = ', 'export type UserEmbedded = ', '"toDos": {', '"auth": {', 'completeTodo:', 'export interface RealtimeRecords', '    subscribe: (topics']) expect(clientV1).toContain(member);
    // The realtime streams are read by `subscribe`, never by the JSON call (which would wait for their end).
    expect(clientV1).not.toMatch(/call<"\w+">\("GET", "\/realtime/);
    // No import, no require: nothing to install.
    expect(clientV1).not.toMatch(/^\s*import\s/m);
    expect(clientV1).not.toMatch(/\brequire\(/);

    const again = await fetch(`${apiUrl(app.serverVersion)}/client.ts`);
    expect(await again.text()).toBe(clientV1);
    expect(again.headers.get('etag')).toBe(etagV1);
    const notModified = await fetch(`${apiUrl(app.serverVersion)}/client.ts`, { headers: { 'if-none-match': etagV1 } });
    expect(notModified.status).toBe(304);
    expect(await notModified.text()).toBe('');
  }, 120_000);

  it('type-checks a program with tsc, which then runs against the live app: sign up, create, list, log in', async () => {
    const dir = join(work, 'todo');
    const email = `ann.${driver}@example.test`;
    const built = await compile(dir, clientV1, todoProgram(apiUrl(app.serverVersion), email));
    expect(built.stdout + built.stderr).toBe('');
    expect(built.code).toBe(0);

    const ran = await runNode([join(dir, 'out', 'program.js')], dir);
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const seen = JSON.parse(ran.stdout) as Record<string, unknown> & { created: { id: string; title: string; status: string }; listed: string[]; total: number };
    expect(seen.signedUp).toBe(email);
    expect(seen.created).toMatchObject({ title: 'Try the typed client', status: 'open' });
    expect(seen.listed).toContain('Try the typed client');
    expect(seen.welcomed).toBe(true);
    expect(seen.total).toBe(seen.listed.length);
    expect(seen.total).toBe(2);
    expect(seen.found).toEqual(['Try the typed client']);
    expect(seen.aggregated).toEqual([['open', seen.total]]);
    // bulk import is the administrators': the typed method exists, an end user is refused
    expect(seen.importRefused).toBe(403);
    expect(seen.anonymous).toBe(401);
    expect(seen.forgotten).toBe(true);
    expect(seen.tokenKept).toBe(true);
    expect(seen.refreshKept).toBe(true);
    expect(seen.me).toBe(email);
    expect(seen.statusAfter).toBe('done');
    expect(seen.ownerIsMe).toBe(true);

    // What the program created is there for anyone with the app's credentials to see.
    const stored = await tenant.api.get<{ title: string; status: string }>(`${apiPath(t, app.id, app.serverVersion)}/toDos/${seen.created.id}`);
    expect(stored.body).toMatchObject({ title: 'Try the typed client', status: 'done' });
  }, 180_000);

  it('subscribes over streamed SSE: a create, update and delete through the API reach the typed handlers, then it unsubscribes and exits', async () => {
    const dir = join(work, 'subscribe');
    const built = await compile(dir, clientV1, subscribeProgram(apiUrl(app.serverVersion), `sue.${driver}@example.test`));
    expect(built.stdout + built.stderr).toBe('');
    expect(built.code).toBe(0);
    const ran = await runNode([join(dir, 'out', 'program.js')], dir);
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const out = JSON.parse(ran.stdout) as { createdId: string; seen: Array<{ action: string; id: string; title: string | null; eventId: string }>; one: string[] };
    const mine = out.seen.filter((e) => e.id === out.createdId);
    expect(mine.map(({ action, id, title }) => ({ action, id, title }))).toEqual([
      { action: 'create', id: out.createdId, title: 'Heard live' },
      { action: 'update', id: out.createdId, title: 'Heard live (2)' },
      { action: 'delete', id: out.createdId, title: null },
    ]);
    const eventIds = mine.map((e) => Number(e.eventId));
    expect(eventIds.every((n) => Number.isSafeInteger(n) && n > 0)).toBe(true);
    expect(eventIds).toEqual([...eventIds].sort((a, b) => a - b));
    // The record's own topic: its update. (Its create, committed just before this subscription, may
    // come first when the server had not yet handed it on: a stream is not cut at its opening.)
    expect(out.one.filter((action) => action !== 'create')).toEqual(['Heard live (2)']);
  }, 120_000);

  it('reads SSE split anywhere, with any line end; reconnects with the last id and the token; stops on a refusal', async () => {
    const dir = join(work, 'sse-reader');
    const built = await compile(dir, clientV1, sseReaderProgram());
    expect(built.stdout + built.stderr).toBe('');
    const ran = await runNode([join(dir, 'out', 'program.js')], dir);
    expect(ran.stderr).toBe('');
    expect(JSON.parse(ran.stdout)).toEqual({
      events: [
        { id: '7', resource: 'toDos', action: 'create', record: { id: 'a', title: 'one' } },
        { id: '9', resource: 'toDos', action: 'delete', record: { id: 'a' } },
      ],
      opens: 1,
      resets: 1,
      status: 401,
      calls: [
        { url: 'http://example.invalid/api/realtime?subscribe=toDos%2Fa,users', lastEventId: null, authorization: 'Bearer tok' },
        { url: 'http://example.invalid/api/realtime?subscribe=toDos%2Fa,users', lastEventId: '9', authorization: 'Bearer tok' },
      ],
    });
  }, 120_000);

  it("catches a wrong type, an unknown field, a value outside the enum, a misspelt query, an unnarrowed change and a misspelt topic", async () => {
    const checked = await compile(join(work, 'wrong'), clientV1, wrongProgram(), { noEmit: true });
    expect(checked.code).not.toBe(0);
    const found = diagnostics(checked.stdout);
    expect(found.map((d) => d.line)).toEqual([4, 5, 6, 7, 8, 9]);
    expect(found.map((d) => d.code)).toEqual(['TS2322', 'TS2561', 'TS2322', 'TS2561', 'TS2339', 'TS2820']);
  }, 120_000);

  it('ships the same client.ts in the frontend bundle', async () => {
    const download = await downloadBundle(tenant, app.id);
    const entries = unzipSync(download.bytes);
    expect(Object.keys(entries)).toContain('client.ts');
    expect(strFromU8(entries['client.ts'])).toBe(clientV1);
    expect(strFromU8(entries['README.md'])).toContain('`client.ts`');
  }, 120_000);

  it("renames the client's types and resource with a model renamed in a new version; the old version keeps its client", async () => {
    const renamed = await tenant.api.patch<AppReply>(`/v1/applications/${app.id}/models/urn:svc:model:todo`, { name: 'Task' });
    expect(renamed.status, renamed.text).toBe(200);
    const v2 = renamed.body.serverVersion;
    expect(v2).not.toBe(app.serverVersion);
    await publishAndWait(t, tenant, app.id, v2, 'tasks');

    const response = await fetch(`${apiUrl(v2)}/client.ts`);
    expect(response.status).toBe(200);
    const clientV2 = await response.text();
    expect(response.headers.get('etag')).not.toBe(etagV1);
    expect(clientV2).toContain('export type Task = ');
    expect(clientV2).toContain('"tasks": {');
    expect(clientV2).not.toContain('export type ToDo = ');
    expect(clientV2).not.toContain('"toDos": {');

    // The program written for version 1 no longer type-checks against version 2, exactly where it names the old model.
    const stale = await compile(join(work, 'stale'), clientV2, todoProgram(apiUrl(v2), 'bob@example.test'), { noEmit: true });
    expect(stale.code).not.toBe(0);
    expect(stale.stdout).toMatch(/has no exported member named 'ToDo'|has no exported member 'ToDo'/);
    expect(stale.stdout).toMatch(/Property 'toDos' does not exist/);
    // Renamed to match, it does, and it runs against version 2.
    const dir = join(work, 'task');
    const email = `bob.${driver}@example.test`;
    const built = await compile(dir, clientV2, taskProgram(apiUrl(v2), email));
    expect(built.stdout + built.stderr).toBe('');
    const ran = await runNode([join(dir, 'out', 'program.js')], dir);
    expect(ran.stderr).toBe('');
    expect(JSON.parse(ran.stdout)).toMatchObject({ signedUp: email, me: email, statusAfter: 'done', ownerIsMe: true });

    // Version 1 is still served with its own client.
    const old = await fetch(`${apiUrl(app.serverVersion)}/client.ts`);
    expect(old.headers.get('etag')).toBe(etagV1);
    expect(await old.text()).toBe(clientV1);
  }, 240_000);
});
