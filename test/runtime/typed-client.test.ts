/**
 * `GET {app api}/client.ts` (issue 19): the typed client of a served version of the to-do
 * example, downloaded from the real server, type-checked with the project's `tsc` together with
 * a small program, compiled, and run with node against the live app (sign up, create, list,
 * log out and in, refresh, me, an HTTP trigger). Its types catch mistakes; a model renamed in a new
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
import { compile, diagnostics, runNode, taskProgram, todoProgram, wrongProgram } from './typed-client-program.ts';

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
    for (const member of ['export function createClient', 'export type ToDo = ', 'export type UserEmbedded = ', '"toDos": {', '"auth": {', 'completeTodo:']) expect(clientV1).toContain(member);
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
    expect(seen.total).toBe(seen.listed.length);
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

  it("catches a wrong type, an unknown field, a value outside the enum and a misspelt query", async () => {
    const checked = await compile(join(work, 'wrong'), clientV1, wrongProgram(), { noEmit: true });
    expect(checked.code).not.toBe(0);
    const found = diagnostics(checked.stdout);
    expect(found.map((d) => d.line)).toEqual([4, 5, 6, 7]);
    expect(found.map((d) => d.code)).toEqual(['TS2322', 'TS2561', 'TS2322', 'TS2561']);
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
