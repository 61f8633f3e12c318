// A conformance walk of both OpenAPI documents the service publishes (the management API's and a
// published generated app's), checking what an outside OpenAPI tester checks: each operation is
// called with schema-valid input as a caller it is documented for, and its answer's status must be
// documented for that operation, its content type documented for that status, and its body valid
// against the documented schema (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 says). Undeclared methods
// answer 405 with `Allow`; a resource created then deleted answers 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { concretePath, sampleOf } from '../support/openapi.ts';
import { publish, ServedApi } from '../runtime/served-app.ts';

type Schema = Record<string, unknown>;
interface ResponseObject {
  $ref?: string;
  content?: Record<string, { schema?: Schema }>;
}
interface OperationObject {
  operationId: string;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: Schema }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses: Record<string, ResponseObject>;
}
interface Document {
  paths: Record<string, Record<string, OperationObject | unknown>>;
  components?: { schemas?: Record<string, Schema>; responses?: Record<string, ResponseObject> };
}
interface Call {
  document: 'management' | 'app';
  method: string;
  path: string;
  op: OperationObject;
  pointer: string;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
/** Reads first, then writes, deletions last: a walk that deletes first has nothing left to read. */
const ORDER: Record<string, number> = { get: 0, post: 1, put: 1, patch: 1, delete: 2 };
/** Operations whose sample input would end the walk for every later one (the project, the end user's session). */
const LAST = new Set(['deleteApplication', 'deleteProject', 'logout']);

const escapePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');

function operationsOf(document: Document, name: Call['document']): Call[] {
  const calls: Call[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const op = item[method] as OperationObject | undefined;
      if (!op) continue;
      calls.push({ document: name, method, path, op, pointer: `${name}.json#/paths/${escapePointer(path)}/${method}` });
    }
  }
  const last = (call: Call) => Number(LAST.has(call.op.operationId) || call.path.endsWith('/logout'));
  return calls.sort((a, b) => last(a) - last(b) || ORDER[a.method] - ORDER[b.method]);
}

/** The documented response for `status` (exact, `4XX`-style, or `default`), with its key. */
function documentedResponse(op: OperationObject, status: number): string | null {
  for (const key of [String(status), `${String(status)[0]}XX`, 'default']) if (op.responses[key]) return key;
  return null;
}

function mediaType(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

describe.each(await availableDrivers())('the OpenAPI documents hold for what the service answers (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let served: AppReply;
  let api: ServedApi;
  let user: { token: string; user: { id: string } };
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats.default(ajv);
  const calls: Call[] = [];
  const params: Record<Call['document'], Record<string, string>> = { management: {}, app: {} };
  const documents: Partial<Record<Call['document'], Document>> = {};

  /** The documented response `key` of `call`, `$ref` followed, and the JSON pointer where it lives. */
  function responseOf(call: Call, key: string): { response: ResponseObject; pointer: string } {
    const response = call.op.responses[key];
    const ref = response.$ref;
    if (!ref) return { response, pointer: `${call.pointer}/responses/${key}` };
    const name = ref.split('/').pop()!;
    return { response: documents[call.document]!.components!.responses![name], pointer: `${call.document}.json${ref}` };
  }

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Conformance');
    const edited = await createTodoApp(tenant);
    served = await createTodoApp(tenant);
    await publish(tenant, served.id);
    api = new ServedApi(t, tenant, served.id, served.serverVersion);
    user = await api.signup('Walker', 'walker@example.test');
    const todo = await api.post('/toDos', { title: 't', description: 'd', deadline: '2030-01-01T00:00:00Z', user: user.user.id }, user.token);
    expect(todo.status).toBe(201);
    const scode = edited.scode as unknown as { models: Array<{ id: string; fields: Array<{ id: string }> }>; actions: Array<{ id: string }>; triggers: Array<{ trigger: { id: string } }> };
    params.management = {
      applicationId: edited.id,
      projectId: tenant.projectId,
      modelId: scode.models[0].id,
      fieldId: scode.models[0].fields[0].id,
      actionId: scode.actions[0].id,
      triggerId: scode.triggers[0].trigger.id,
      serverVersion: edited.serverVersion,
    };
    params.app = { id: todo.body.id as string };
    const management = (await (await fetch(`${t.baseUrl}/v1/openapi.json`)).json()) as Document;
    const app = (await (await fetch(`${api.base}/openapi.json`)).json()) as Document;
    ajv.addSchema(management as unknown as Schema, 'management.json');
    ajv.addSchema(app as unknown as Schema, 'app.json');
    documents.management = management;
    documents.app = app;
    // The app first: the management walk ends by deleting the project that holds it.
    calls.push(...operationsOf(app, 'app'), ...operationsOf(management, 'management'));
  });
  afterAll(() => t?.close());

  function headersFor(call: Call): Record<string, string> {
    if (call.document === 'management' || call.path.startsWith('/users')) {
      return { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey! };
    }
    return { authorization: `Bearer ${user.token}` };
  }

  function requestOf(call: Call): { url: string; init: RequestInit } {
    const base = call.document === 'management' ? t.baseUrl : api.base;
    const path = concretePath(call.path, call.path.startsWith('/users') ? { id: user.user.id } : params[call.document]);
    const query = new URLSearchParams();
    for (const parameter of call.op.parameters ?? []) {
      if (parameter.in === 'query' && parameter.required) query.set(parameter.name, String(sampleOf(parameter.schema)));
    }
    const headers = headersFor(call);
    const json = call.op.requestBody?.content?.['application/json'];
    let body: string | undefined;
    if (json) {
      const schema = ajv.getSchema(`${call.pointer}/requestBody/content/application~1json/schema`)?.schema as Schema | undefined;
      body = JSON.stringify(sampleOf(resolveRefs(schema, call.document)));
      headers['content-type'] = 'application/json';
    }
    return { url: `${base}${path}${query.size > 0 ? `?${query}` : ''}`, init: { method: call.method.toUpperCase(), headers, body } };
  }

  function resolveRefs(schema: Schema | undefined, document: Call['document'], depth = 4): Schema | undefined {
    if (!schema || depth === 0) return schema;
    const ref = schema.$ref;
    if (typeof ref === 'string') return resolveRefs(ajv.getSchema(`${document}.json${ref}`)?.schema as Schema, document, depth - 1);
    return Object.fromEntries(
      Object.entries(schema).map(([key, value]) => [
        key,
        Array.isArray(value)
          ? value.map((v) => (typeof v === 'object' && v ? resolveRefs(v as Schema, document, depth) : v))
          : typeof value === 'object' && value
            ? key === 'properties'
              ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveRefs(v as Schema, document, depth)]))
              : resolveRefs(value as Schema, document, depth)
            : value,
      ]),
    );
  }

  it('answers 405 with Allow for every method a path does not declare, in both documents', async () => {
    const failures: string[] = [];
    for (const [name, document] of Object.entries(documents) as Array<[Call['document'], Document]>) {
      const base = name === 'management' ? t.baseUrl : api.base;
      const templates = Object.entries(document.paths).map(([path, item]) => ({
        pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`),
        methods: METHODS.filter((method) => item[method]).map((m) => m.toUpperCase()),
      }));
      for (const [path, item] of Object.entries(document.paths)) {
        const declared = METHODS.filter((method) => item[method]).map((m) => m.toUpperCase());
        const concrete = concretePath(path, path.startsWith('/users') ? { id: user.user.id } : params[name]);
        const url = `${base}${concrete}`;
        // `/v1/builders/me` is also `/v1/builders/{builderId}`: a method that template declares is routed there.
        const elsewhere = (method: string) => templates.some((other) => other.methods.includes(method) && other.pattern.test(concrete));
        for (const method of ['PUT', 'PATCH', 'DELETE', 'POST', 'GET'].filter((m) => !declared.includes(m) && !elsewhere(m))) {
          const response = await fetch(url, { method, headers: { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey! } });
          const allow = (response.headers.get('allow') ?? '').split(/,\s*/);
          if (response.status !== 405 || !declared.every((m) => allow.includes(m))) {
            failures.push(`${name} ${method} ${path} → ${response.status}, Allow: ${response.headers.get('allow')} (declared ${declared.join(', ')})`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('answers 404 for a resource once it is deleted', async () => {
    const project = await tenant.api.post<{ id: string }>('/v1/projects', { name: 'Short-lived' });
    expect(project.status).toBe(201);
    expect((await tenant.api.delete(`/v1/projects/${project.body.id}`)).status).toBe(204);
    expect((await tenant.api.get(`/v1/projects/${project.body.id}`)).status).toBe(404);
    const todo = await api.post('/toDos', { title: 'gone', description: 'd', deadline: '2030-01-01T00:00:00Z', user: user.user.id }, 'admin');
    expect(todo.status).toBe(201);
    expect((await api.call('DELETE', `/toDos/${todo.body.id as string}`, 'admin')).status).toBe(204);
    expect((await api.get(`/toDos/${todo.body.id as string}`, 'admin')).status).toBe(404);
  });

  // Last: the walk deletes what it created, the project among them.
  it('walks every operation of both documents: documented status, content type and body', { timeout: 300_000 }, async () => {
    expect(calls.filter((c) => c.document === 'management').length).toBeGreaterThan(60);
    expect(calls.filter((c) => c.document === 'app').length).toBeGreaterThan(10);
    const failures: string[] = [];
    for (const call of calls) {
      const { url, init } = requestOf(call);
      const response = await fetch(url, init);
      const label = `${call.document} ${call.method.toUpperCase()} ${call.path} → ${response.status}`;
      const key = documentedResponse(call.op, response.status);
      if (!key) {
        failures.push(`${label}: status not documented (${Object.keys(call.op.responses).join(', ')}): ${(await response.text()).slice(0, 160)}`);
        continue;
      }
      const { response: documented, pointer } = responseOf(call, key);
      const content = documented.content;
      const type = mediaType(response.headers.get('content-type') ?? '');
      if (!content) {
        const text = await response.text();
        if (text.length > 0) failures.push(`${label}: a body (${type}) where none is documented`);
        continue;
      }
      if (!content[type]) {
        failures.push(`${label}: content type ${type || '(none)'} not documented (${Object.keys(content).join(', ')})`);
        continue;
      }
      // NDJSON (an export) is one JSON text per line, not one JSON text.
      if (!type.includes('json') || type.endsWith('ndjson')) continue;
      const text = await response.text();
      const validate = ajv.getSchema(`${pointer}/content/${escapePointer(type)}/schema`);
      if (!validate) continue;
      if (!validate(JSON.parse(text))) {
        failures.push(`${label}: body does not match its schema: ${ajv.errorsText(validate.errors, { separator: '; ' }).slice(0, 300)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
