/**
 * The role table (DESIGN §10), walked over every operation of the management OpenAPI document
 * the server publishes (so a route added later is walked too), with a viewer, an editor, an
 * admin and an owner builder, an editor limited to another project, a revoked and an expired
 * token, and the customer's own API client (an owner):
 * - revoked / expired → 401 everywhere;
 * - the scoped builder → 404 on every operation naming the fixture project or its application
 *   (in the path or the body), 403 on createProject, else as its role;
 * - a role below the operation's `x-required-role` → 403 naming the role; at or above it →
 *   neither 401 nor 403, and no 404 for the fixture's project, application, builder, token or
 *   client (path parameters are filled with real ids; changes get fresh resources each).
 * The document's `x-required-role` is checked against the table for the operations that need
 * more than their default, and must be present on every operation.
 * The same callers on the fixture application's own routes and realtime stream: revoked / expired
 * → 401; the scoped builder → 404 (reads, writes and the stream); a viewer reads and streams but
 * every write is 403 naming the editor role; editor and above write, and each write is in the audit
 * trail with its route template and the application's id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, type AppReply, type Tenant } from '../support/tenant.ts';
import { todoScode } from '../support/examples.ts';
import { definitionEditBodies } from '../support/operation-bodies.ts';
import SwaggerParser from '@apidevtools/swagger-parser';
import { concretePath, sampleOf, send, type Operation } from '../support/openapi.ts';
import { defaultRequiredRole, roleAtLeast, ROLES, type Role } from '../../src/access/roles.ts';
import { addBuilder, tokenFor, type TestBuilder } from './builders-support.ts';
import { SseClient, upgradeStatus } from '../realtime/clients.ts';

const drivers = await availableDrivers();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Operations that need more than their method's default role. */
const ELEVATED: Record<string, Role> = {
  deleteProject: 'admin',
  deleteApplication: 'admin',
  purgeApplicationFields: 'admin',
  createCustomer: 'owner',
  createApiClient: 'owner',
  listApiClients: 'owner',
  deleteApiClient: 'owner',
  createBuilder: 'owner',
  listBuilders: 'owner',
  getBuilder: 'owner',
  updateBuilder: 'owner',
  deleteBuilder: 'owner',
  createBuilderToken: 'owner',
  listBuilderTokens: 'owner',
  revokeBuilderToken: 'owner',
  listAuditEvents: 'owner',
  createBackup: 'admin',
  getBackupContent: 'admin',
  deleteBackup: 'admin',
  restoreApplication: 'admin',
};
/** Operations this test knows (present when it was written): their answers must also be < 500. */
const KNOWN = new Set([
  ...Object.keys(ELEVATED),
  'createProject', 'listProjects', 'getProject', 'updateProject', 'createApplication', 'listApplications', 'getApplication',
  'replaceApplicationDefinition', 'generateModels', 'getApplicationStatus', 'publishApplication', 'unpublishApplication',
  'getIntegrationPrompts', 'getFrontendBundle', 'listRuns', 'getRun', 'testAction', 'listVersions', 'getVersion', 'diffVersions',
  'restoreVersion', 'updateModel', 'createModel', 'createField', 'updateField', 'createAction', 'modifyEffects', 'createTrigger',
]);
/** Parameters naming the fixture's own resources: with these filled, a 404 about them is a failure. */
const OWNED_PATHS = ['/projectId', '/applicationId', '/builderId', '/tokenId', '/apiClientId'];
let emails = 0;

function bodies(projectId: string): Record<string, unknown> {
  emails += 1;
  return {
    ...definitionEditBodies(projectId),
    createProject: { name: 'Walk project' },
    updateProject: { name: 'Renamed' },
    createBuilder: { name: 'Walked', email: `walked.${emails}@example.com`, role: 'viewer' },
    updateBuilder: { name: 'Renamed builder' },
    createBuilderToken: {},
    createApiClient: { name: 'walked' },
    createCustomer: { name: 'Walked customer' },
  };
}

function bodyFor(op: Operation, projectId: string, applicationId: string): unknown {
  if (op.operationId === 'postAssistantMessage') return { content: 'Add a priority to to-dos', applicationId };
  const known = bodies(projectId);
  if (op.operationId in known) return known[op.operationId];
  return op.bodySchema ? sampleOf(op.bodySchema) : undefined;
}

interface Resources {
  projectId: string;
  applicationId: string;
  builderId: string;
  tokenId: string;
  apiClientId: string;
}

const paramsOf = (r: Resources): Record<string, string> => ({
  ...r,
  modelId: 'urn:svc:model:todo',
  fieldId: 'urn:svc:edge:todo-title',
  actionId: 'urn:svc:action:complete-todo',
  triggerId: 'urn:svc:trigger:complete-todo',
  serverVersion: '1.0.1',
  from: '1.0.1',
  to: '1.0.1',
});

interface Caller {
  name: string;
  headers: Record<string, string>;
  /** The role (null: refused at authentication). */
  role: Role | null;
  scoped: boolean;
  /** The builder behind the token (the audit trail's actor), when a builder's. */
  builderId?: string;
}

describe.each(drivers)('role table walk (%s)', (driver) => {
  let t: TestPlatform;
  let a: Tenant;
  let fixture: Resources;
  let operations: Operation[];
  let roles: Map<string, Role>;
  const callers: Caller[] = [];
  const apps: string[] = [];

  const bearer = (token: string) => ({ authorization: `Bearer ${token}`, 'x-svc-api-client': a.api.apiKey! });

  async function newApp(projectId: string): Promise<string> {
    const reply = await a.api.post<AppReply>('/v1/applications', { projectId, name: 'Walk fixture', scode: todoScode() });
    expect(reply.status, reply.text).toBe(201);
    apps.push(reply.body.id);
    return reply.body.id;
  }

  /** Fresh resources for a change the caller may make, so one change cannot spoil the next. */
  async function freshFor(op: Operation): Promise<Resources> {
    const r = { ...fixture };
    if (op.params.includes('projectId') || op.params.includes('applicationId')) {
      r.projectId = (await a.api.post<{ id: string }>('/v1/projects', { name: 'Walk fresh' })).body.id;
      // The assistant names its application in the body: one of the fresh project.
      if (op.params.includes('applicationId') || op.operationId === 'postAssistantMessage') r.applicationId = await newApp(r.projectId);
    }
    if (op.params.includes('builderId')) {
      const builder = await addBuilder(a.api, 'viewer');
      Object.assign(r, { builderId: builder.id, tokenId: builder.tokenId });
    }
    if (op.params.includes('apiClientId')) r.apiClientId = (await a.api.post<{ id: string }>('/v1/api-clients', { name: 'walk' })).body.id;
    return r;
  }

  async function settle(): Promise<void> {
    for (let i = 0; i < 240; i++) {
      const rows = await sql<{ n: number }>`select count(*)::int as n from appbuilder.jobs where status in ('queued', 'running')`.execute(t.database.db.kysely);
      if (rows.rows[0].n === 0) return;
      await sleep(250);
    }
    throw new Error('jobs did not finish');
  }

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    a = await createTenant(t, 'Walk');
    const fixtureBuilder = await addBuilder(a.api, 'viewer', null, 'fixture builder');
    const client = await a.api.post<{ id: string }>('/v1/api-clients', { name: 'fixture client' });
    fixture = { projectId: a.projectId, applicationId: await newApp(a.projectId), builderId: fixtureBuilder.id, tokenId: fixtureBuilder.tokenId, apiClientId: client.body.id };
    // Published with its bundle built, so the reads of served things have something to read.
    expect((await a.api.post(`/v1/applications/${fixture.applicationId}/publish`, {})).status).toBe(202);
    await settle();
    for (let i = 0; i < 60; i++) {
      const bundle = await a.api.get(`/v1/applications/${fixture.applicationId}/frontendBundle`);
      if (bundle.status === 200) break;
      expect(bundle.status, bundle.text).toBe(202);
      await sleep(500);
    }
    await settle();

    const other = await a.api.post<{ id: string }>('/v1/projects', { name: 'Another project' });
    const builders: Array<[Role, TestBuilder]> = [];
    for (const role of ROLES) builders.push([role, await addBuilder(a.api, role)]);
    for (const [role, b] of builders) callers.push({ name: role, headers: bearer(b.token), role, scoped: false, builderId: b.id });
    const scoped = await addBuilder(a.api, 'editor', [other.body.id]);
    callers.push({ name: 'editor scoped to another project', headers: bearer(scoped.token), role: 'editor', scoped: true });
    const revoked = await addBuilder(a.api, 'owner');
    expect((await a.api.delete(`/v1/builders/${revoked.id}/tokens/${revoked.tokenId}`)).status).toBe(204);
    callers.push({ name: 'revoked token', headers: bearer(revoked.token), role: null, scoped: false });
    const expiring = await tokenFor(a.api, revoked.id, { expiresIn: 3600 });
    await sql`update appbuilder.builder_tokens set expires_at = now() - interval '1 minute' where id = ${expiring.tokenId}`.execute(t.database.db.kysely);
    callers.push({ name: 'expired token', headers: bearer(expiring.token), role: null, scoped: false });
    callers.push({ name: 'API client', headers: bearer(a.api.token!), role: 'owner', scoped: false });

    // Shared schemas are `$ref`s to named components: resolved, so each body schema reads whole.
    const document = (await SwaggerParser.dereference((await (await fetch(`${t.baseUrl}/v1/openapi.json`)).json()) as Parameters<typeof SwaggerParser.dereference>[0])) as unknown as {
      paths: Record<string, Record<string, { operationId: string; security?: unknown[]; 'x-required-role'?: Role; requestBody?: { content?: Record<string, { schema?: Record<string, unknown> }> } }>>;
    };
    operations = [];
    roles = new Map();
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (Array.isArray(op.security) && op.security.length === 0) continue;
        operations.push({
          method: method.toUpperCase(),
          path,
          operationId: op.operationId,
          secured: true,
          params: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]),
          bodySchema: op.requestBody?.content?.['application/json']?.schema ?? null,
        });
        if (op['x-required-role']) roles.set(op.operationId, op['x-required-role']);
      }
    }
  }, 240_000);
  afterAll(async () => {
    if (t) await settle().catch(() => {});
    await t?.close();
  });

  it('states the least role of every operation in the document (x-required-role)', () => {
    expect(operations.length).toBeGreaterThan(30);
    for (const op of operations) {
      const expected = ELEVATED[op.operationId] ?? (KNOWN.has(op.operationId) ? defaultRequiredRole(op.method) : undefined);
      expect(roles.get(op.operationId), op.operationId).toBeDefined();
      if (expected) expect(roles.get(op.operationId), op.operationId).toBe(expected);
    }
    for (const id of Object.keys(ELEVATED)) expect([...roles.keys()], id).toContain(id);
  });

  it("answers the fixture application's own routes and realtime for every caller as the role table says", async () => {
    const { serverVersion } = (await a.api.get<{ serverVersion: string }>(`/v1/applications/${fixture.applicationId}`)).body;
    const base = `${t.baseUrl}${t.config.appsPath}/${fixture.applicationId}/api/v${serverVersion}`;
    const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, contentType: response.headers.get('content-type') ?? '', text: await response.text() };
    };
    const owner = bearer(a.api.token!);
    // A to-do belongs to an end user.
    const signedUp = await call('POST', '/auth/signup', {}, { name: 'Walk user', email: 'walk.user@example.com', password: 'correct horse' });
    expect(signedUp.status, signedUp.text).toBe(201);
    const user = (JSON.parse(signedUp.text) as { user: { id: string } }).user.id;
    const newTodo = async () => {
      const created = await call('POST', '/toDos', owner, { title: 'walk', status: 'open', user });
      expect(created.status, created.text).toBe(201);
      return JSON.parse(created.text) as { id: string };
    };
    const failures: string[] = [];
    const expectStatus = (label: string, reply: { status: number; text: string }, status: number) => {
      if (reply.status !== status) failures.push(`${label} → ${reply.status} ${reply.text.slice(0, 160)} [expected ${status}]`);
    };
    for (const caller of callers) {
      const todo = await newTodo();
      const reads = [await call('GET', '/toDos', caller.headers), await call('GET', `/toDos/${todo.id}`, caller.headers)];
      const writes = [
        { label: 'POST /toDos', reply: await call('POST', '/toDos', caller.headers, { title: `by ${caller.name}`, status: 'open', user }), ok: 201 },
        { label: 'PATCH /toDos/:id', reply: await call('PATCH', `/toDos/${todo.id}`, caller.headers, { title: 'edited' }), ok: 200 },
        { label: 'DELETE /toDos/:id', reply: await call('DELETE', `/toDos/${todo.id}`, caller.headers), ok: 204 },
        { label: 'POST /auth/signup', reply: await call('POST', '/auth/signup', caller.headers, { name: 'Walked', email: `walked.app.${(emails += 1)}@example.com`, password: 'correct horse' }), ok: 201 },
      ];
      const stream = await SseClient.open(`${base}/realtime?subscribe=toDos`, caller.headers);
      stream.close();
      const ws = await upgradeStatus(`${base}/realtime/ws?subscribe=toDos`, caller.headers);
      const label = (what: string) => `${caller.name}: ${what}`;
      if (caller.role === null) {
        for (const reply of reads) expectStatus(label('read'), reply, 401);
        for (const w of writes) expectStatus(label(w.label), w.reply, 401);
        expectStatus(label('realtime stream'), { status: stream.status, text: stream.body }, 401);
        expectStatus(label('realtime WebSocket'), { status: ws, text: '' }, 401);
      } else if (caller.scoped) {
        // As the management API answers for this application: not found.
        for (const reply of [...reads, ...writes.map((w) => w.reply)]) {
          expectStatus(label('read or write'), reply, 404);
          if (!reply.contentType.includes('application/problem+json')) failures.push(label('404 is not a problem'));
        }
        expectStatus(label('realtime stream'), { status: stream.status, text: stream.body }, 404);
        expectStatus(label('realtime WebSocket'), { status: ws, text: '' }, 404);
      } else {
        for (const reply of reads) expectStatus(label('read'), reply, 200);
        expectStatus(label('realtime stream'), { status: stream.status, text: stream.body }, 200);
        expectStatus(label('realtime WebSocket'), { status: ws, text: '' }, 101);
        for (const w of writes) {
          if (roleAtLeast(caller.role, 'editor')) expectStatus(label(w.label), w.reply, w.ok);
          else {
            expectStatus(label(w.label), w.reply, 403);
            if (!w.reply.text.includes('needs the editor role')) failures.push(`${label(w.label)} [expected the role named]`);
          }
        }
      }
    }
    expect(failures).toEqual([]);

    // Every write made with management credentials is on the trail (written once answered), reads are not.
    const prefix = `${t.config.appsPath}/:applicationId/api/v${serverVersion}`;
    type Event = { actor: { id: string }; method: string; path: string; status: number; applicationId: string | null };
    const editorId = callers.find((c) => c.name === 'editor')!.builderId!;
    let events: Event[] = [];
    for (let i = 0; i < 50; i++) {
      events = (await a.api.get<{ items: Event[] }>(`/v1/audit-events?applicationId=${fixture.applicationId}&limit=100`)).body.items;
      if (events.filter((e) => e.actor.id === editorId).length >= 4) break;
      await sleep(100);
    }
    const byEditor = events.filter((e) => e.actor.id === editorId).map((e) => `${e.method} ${e.path} ${e.status}`).sort();
    expect(byEditor).toEqual([`DELETE ${prefix}/toDos/:id 204`, `PATCH ${prefix}/toDos/:id 200`, `POST ${prefix}/auth/signup 201`, `POST ${prefix}/toDos 201`].sort());
    expect(events.every((e) => e.applicationId === fixture.applicationId && e.method !== 'GET' && !e.path.includes(fixture.applicationId))).toBe(true);
    // The viewer's refused writes are on the trail too, with their 403.
    expect(events.filter((e) => e.status === 403).length).toBeGreaterThanOrEqual(4);
  }, 120_000);

  it('answers every operation for every caller as the role table says', async () => {
    // Deletions last, so a wrongly allowed one cannot hide behind a missing fixture.
    const ordered = [...operations].sort((x, y) => Number(x.method === 'DELETE') - Number(y.method === 'DELETE'));
    const failures: string[] = [];
    const seen = { allowed: 0, refused: 0, scoped: 0, unauthenticated: 0 };
    const check = (ok: boolean, label: string) => {
      if (!ok) failures.push(label);
    };
    for (const op of ordered) {
      const needed = roles.get(op.operationId)!;
      const scopedByPath = op.params.includes('projectId') || op.params.includes('applicationId');
      for (const caller of callers) {
        const allowed =
          caller.role !== null &&
          roleAtLeast(caller.role, needed) &&
          // Customers are created by platform administrators only; none of these callers is one.
          op.operationId !== 'createCustomer' &&
          !(caller.scoped && (scopedByPath || op.operationId === 'createProject' || op.operationId === 'createApplication'));
        const resources = allowed && op.method !== 'GET' ? await freshFor(op) : fixture;
        const reply = await send(t.baseUrl, op, concretePath(op.path, paramsOf(resources)), caller.headers, bodyFor(op, resources.projectId, resources.applicationId));
        const label = `${caller.name}: ${op.method} ${op.path} (${op.operationId}, needs ${needed}) → ${reply.status} ${reply.text.slice(0, 160)}`;
        if (caller.role === null) {
          seen.unauthenticated += 1;
          check(reply.status === 401, `${label} [expected 401]`);
        } else if (caller.scoped && (scopedByPath || op.operationId === 'createApplication')) {
          seen.scoped += 1;
          check(reply.status === 404 && reply.contentType.includes('application/problem+json'), `${label} [expected 404]`);
        } else if (caller.scoped && op.operationId === 'createProject') {
          check(reply.status === 403, `${label} [expected 403]`);
        } else if (!allowed) {
          seen.refused += 1;
          check(reply.status === 403 && reply.contentType.includes('application/problem+json'), `${label} [expected 403]`);
          if (op.operationId !== 'createCustomer') check(reply.text.includes(`needs the ${needed} role`), `${label} [expected the role named]`);
        } else {
          seen.allowed += 1;
          check(reply.status !== 401 && reply.status !== 403, `${label} [expected neither 401 nor 403]`);
          if (reply.status === 404) {
            const paths = (JSON.parse(reply.text) as { errors?: Array<{ path: string }> }).errors?.map((e) => e.path) ?? [];
            check(!paths.some((p) => OWNED_PATHS.includes(p)), `${label} [a fixture resource was not found]`);
          }
          if (KNOWN.has(op.operationId)) check(reply.status < 500, `${label} [expected < 500]`);
        }
      }
    }
    expect(failures).toEqual([]);
    // Every kind of answer was exercised, many times.
    expect(seen.allowed).toBeGreaterThan(100);
    expect(seen.refused).toBeGreaterThan(50);
    expect(seen.scoped).toBeGreaterThan(20);
    expect(seen.unauthenticated).toBe(2 * operations.length);
    // The fixture is intact: no refused change went through.
    expect((await a.api.get(`/v1/projects/${fixture.projectId}`)).status).toBe(200);
    expect((await a.api.get(`/v1/applications/${fixture.applicationId}`)).status).toBe(200);
    expect((await a.api.get(`/v1/builders/${fixture.builderId}`)).status).toBe(200);
  }, 600_000);
});
