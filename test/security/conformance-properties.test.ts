// Property-based conformance of both OpenAPI documents (the management API's and a published
// generated app's), what an outside OpenAPI tester checks: inputs generated from each operation's
// own request schema and parameters (test/support/schema-arbitrary.ts), schema-valid ones and
// schema-invalid ones (one body member or one query parameter mutated). Every answer's status is documented for the operation,
// its content type documented, its body valid (Ajv); a schema-valid input is refused only by a
// documented status whose problem says why; a schema-invalid one is refused with 400 or 422. Then
// stateful chains where the document links them: create → read → update → delete → 404.
// A fixed seed and FUZZ_RUNS cases per database (`npm run fuzz` sends more).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { concretePath } from '../support/openapi.ts';
import { arbitraryOf, mutationsOf, queryMutationsOf, type Schema } from '../support/schema-arbitrary.ts';
import { publish, ServedApi } from '../runtime/served-app.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const SEED = Number(process.env.FUZZ_SEED ?? 4242);
const EDITED_CASES = 250;
const ANSWER_MS = 30_000;
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
/** Calls that would end the walk for every later case: the project, the app, the session, the credentials. */
const ENDS_WALK = /^(deleteApplication|deleteProject|logout|deleteApiClient|rotateApiClientSecret|unpublishApplication)$/;

type Doc = 'management' | 'app';
interface Parameter { name: string; in: string; required?: boolean; schema?: Schema }
interface Op {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { schema?: Schema }> }>;
}
interface Target { doc: Doc; method: string; path: string; op: Op; pointer: string; body?: Schema }
interface Document { paths: Record<string, Record<string, unknown>> }
interface Input { target: Target; valid: boolean; query: Record<string, string>; body?: unknown }

const escapePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');
const mediaType = (contentType: string) => contentType.split(';')[0].trim().toLowerCase();

function targetsOf(document: Document, doc: Doc): Target[] {
  const targets: Target[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const op = item[method] as Op | undefined;
      if (!op) continue;
      const ok = op.responses['200'] ?? op.responses['101'];
      const streams = op.responses['101'] !== undefined || ok?.content?.['text/event-stream'] !== undefined;
      if (streams || method === 'delete' || ENDS_WALK.test(op.operationId) || path.endsWith('/logout')) continue;
      const json = op.requestBody?.content?.['application/json'];
      targets.push({ doc, method, path, op, pointer: `${doc}.json#/paths/${escapePointer(path)}/${method}`, ...(json ? { body: json.schema ?? {} } : {}) });
    }
  }
  return targets;
}

describe.each(await availableDrivers())('generated inputs hold to the OpenAPI documents (%s)', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let api: ServedApi;
  let user: { token: string; user: { id: string } };
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats.default(ajv);
  const documents: Partial<Record<Doc, Document>> = {};
  const params: Record<Doc, Record<string, string>> = { management: {}, app: {} };
  const targets: Target[] = [];
  /** The failures of the running test, by check; `totals` counts those of the whole file. */
  const failures = new Map<string, string[]>();
  const totals = new Map<string, number>();
  const seen = new Set<string>();
  let cases = 0;
  let validCases = 0;
  let chains = 0;

  const resolver = (doc: Doc) => (ref: string) => ajv.getSchema(`${doc}.json${ref}`)?.schema as Schema | undefined;
  const fail = (check: string, text: string) => {
    failures.set(check, [...(failures.get(check) ?? []), text]);
    totals.set(check, (totals.get(check) ?? 0) + 1);
  };

  /**
   * The application the management calls edit. Their models, fields and versions pile up along a
   * long walk (each call then costs more), so a new one takes its place every EDITED_CASES cases.
   */
  async function freshEditedApp(): Promise<void> {
    const edited = await createTodoApp(tenant);
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
  }

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Properties');
    await freshEditedApp();
    const served = await createTodoApp(tenant);
    await publish(tenant, served.id);
    api = new ServedApi(t, tenant, served.id, served.serverVersion);
    user = await api.signup('Prop', 'prop@example.test');
    const todo = await api.post('/toDos', { title: 't', description: 'd', deadline: '2030-01-01T00:00:00Z', user: user.user.id }, user.token);
    params.app = { id: todo.body.id as string };
    documents.management = (await (await fetch(`${t.baseUrl}/v1/openapi.json`)).json()) as Document;
    documents.app = (await (await fetch(`${api.base}/openapi.json`)).json()) as Document;
    ajv.addSchema(documents.management as unknown as Schema, 'management.json');
    ajv.addSchema(documents.app as unknown as Schema, 'app.json');
    targets.push(...targetsOf(documents.app, 'app'), ...targetsOf(documents.management, 'management'));
  });
  afterAll(async () => {
    if (process.env.FUZZ_RUNS) {
      const byCheck = Object.fromEntries(totals);
      console.log(`conformance properties (${driver}): ${cases} cases (${validCases} schema-valid) over ${seen.size} of ${targets.length} operations, ${chains} create→delete chains; failures by check: ${JSON.stringify(byCheck)}`);
    }
    await t?.close();
  });

  function headersFor(doc: Doc, path: string): Record<string, string> {
    // The management document, the user model's routes and the administrators' bulk import take the builder's credential.
    if (doc === 'management' || path.startsWith('/users') || path.endsWith('/import')) return { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey! };
    return { authorization: `Bearer ${user.token}` };
  }

  /** Sends one request and checks its answer against the operation's responses; the status and parsed body. */
  async function check(target: Target, label: string, query: Record<string, string>, body: unknown, path?: string): Promise<{ status: number; json: unknown }> {
    const base = target.doc === 'management' ? t.baseUrl : api.base;
    const concrete = path ?? concretePath(target.path, target.path.startsWith('/users') ? { id: user.user.id } : params[target.doc]);
    const search = new URLSearchParams(query);
    const headers = headersFor(target.doc, target.path);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const url = `${base}${concrete}${search.size > 0 ? `?${search}` : ''}`;
    let response: Response;
    let text: string;
    try {
      // An answer that never comes is a failure of its own, not a walk that hangs.
      const signal = AbortSignal.timeout(ANSWER_MS);
      response = await fetch(url, { method: target.method.toUpperCase(), headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
      text = await response.text();
    } catch (error) {
      fail('answers in time', `${target.doc} ${target.method.toUpperCase()} ${url} ${label}: ${(error as Error).message}`);
      return { status: 0, json: undefined };
    }
    const line = `${target.doc} ${target.method.toUpperCase()} ${target.path} ${label} → ${response.status}`;
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    const key = [String(response.status), `${String(response.status)[0]}XX`, 'default'].find((k) => target.op.responses[k]);
    if (!key) {
      fail('status documented', `${line}: ${text.slice(0, 200)}`);
      return { status: response.status, json };
    }
    let documented = target.op.responses[key];
    let pointer = `${target.pointer}/responses/${key}`;
    if (documented.$ref) {
      pointer = `${target.doc}.json${documented.$ref}`;
      documented = ajv.getSchema(pointer)!.schema as typeof documented;
    }
    const type = mediaType(response.headers.get('content-type') ?? '');
    if (!documented.content) {
      if (text.length > 0) fail('content type documented', `${line}: a body (${type}) where none is documented`);
    } else if (!documented.content[type]) {
      fail('content type documented', `${line}: ${type || '(none)'} not in ${Object.keys(documented.content).join(', ')}`);
    } else if (type.includes('json')) {
      const validate = ajv.getSchema(`${pointer}/content/${escapePointer(type)}/schema`);
      if (validate && !validate(json)) fail('body valid', `${line}: ${ajv.errorsText(validate.errors).slice(0, 300)} in ${text.slice(0, 200)}`);
    }
    return { status: response.status, json };
  }

  /** Query values from each query parameter's schema (the optional ones now and then), or one of them mutated. */
  function queryArbitrary(target: Target) {
    const resolve = resolver(target.doc);
    const query = (target.op.parameters ?? []).filter((p) => p.in === 'query');
    return fc.record(
      Object.fromEntries(query.map((p) => [p.name, arbitraryOf(p.schema, resolve).map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v)))])),
      { requiredKeys: query.filter((p) => p.required).map((p) => p.name) },
    ) as fc.Arbitrary<Record<string, string>>;
  }

  function inputArbitrary(target: Target): fc.Arbitrary<Input | null> {
    const resolve = resolver(target.doc);
    const bodyValidator = target.body ? ajv.getSchema(`${target.pointer}/requestBody/content/application~1json/schema`) : undefined;
    const body = target.body ? arbitraryOf(target.body, resolve) : fc.constant(undefined);
    return fc.tuple(queryArbitrary(target), body, fc.boolean(), fc.nat()).map(([query, value, invalid, pick]) => {
      // A generated value the generator got wrong is no input of either kind.
      if (bodyValidator && !bodyValidator(value)) return null;
      if (!invalid) return { target, valid: true, query, body: value };
      // One part made schema-invalid: a body member, or a query parameter.
      const bodies = target.body && bodyValidator ? mutationsOf(value, target.body, resolve).filter((m) => !bodyValidator(m)) : [];
      const queries = (target.op.parameters ?? [])
        .filter((p) => p.in === 'query')
        .flatMap((p) => queryMutationsOf(p.schema, resolve).map((wrong) => ({ ...query, [p.name]: wrong })));
      const count = bodies.length + queries.length;
      if (count === 0) return { target, valid: true, query, body: value };
      const at = pick % count;
      return at < bodies.length ? { target, valid: false, query, body: bodies[at] } : { target, valid: false, query: queries[at - bodies.length], body: value };
    });
  }

  it('every generated input gets a documented answer; valid ones are not refused without a rule, invalid ones are', { timeout: 600_000 }, async () => {
    expect(targets.length).toBeGreaterThan(60);
    const arbitrary = fc.constantFrom(...targets).chain((target) => inputArbitrary(target));
    await fc.assert(
      fc.asyncProperty(arbitrary, async (input) => {
        if (!input) return;
        cases += 1;
        if (cases % EDITED_CASES === 0) await freshEditedApp();
        const { target } = input;
        seen.add(`${target.doc} ${target.method} ${target.path}`);
        const label = `${input.valid ? 'valid' : 'invalid'} ${JSON.stringify({ query: input.query, body: input.body }).slice(0, 200)}`;
        const { status, json } = await check(target, label, input.query, input.body);
        if (input.valid) validCases += 1;
        const problem = json as { detail?: unknown; errors?: unknown[] } | undefined;
        if (input.valid && (status === 400 || status === 422) && !(typeof problem?.detail === 'string' && problem.detail.length > 0)) {
          fail('valid input refused without a rule', `${target.doc} ${target.method.toUpperCase()} ${target.path} ${label} → ${status}`);
        }
        if (!input.valid && status !== 400 && status !== 422) {
          fail('invalid input refused (400/422)', `${target.doc} ${target.method.toUpperCase()} ${target.path} ${label} → ${status}`);
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    expect(seen.size).toBeGreaterThan(Math.min(40, RUNS / 4));
    expect(Object.fromEntries([...failures].map(([k, v]) => [k, v.slice(0, 8)]))).toEqual({});
  });

  it('creates, reads, updates and deletes along the documents\' links, then the record answers 404', { timeout: 300_000 }, async () => {
    failures.clear();
    let completed = 0;
    for (const doc of ['app', 'management'] as const) {
      const document = documents[doc]!;
      for (const [collection, item] of Object.entries(document.paths)) {
        const post = item.post as Op | undefined;
        const one = Object.keys(document.paths).find((p) => new RegExp(`^${collection.replace(/[{}$]/g, '\\$&')}/\\{\\w+\\}$`).test(p));
        const record = one ? document.paths[one] : undefined;
        if (!post || !one || !record?.get || !record.delete || ENDS_WALK.test((record.delete as Op).operationId) && doc === 'app') continue;
        const created: Target = { doc, method: 'post', path: collection, op: post, pointer: `${doc}.json#/paths/${escapePointer(collection)}/post`, body: post.requestBody?.content?.['application/json']?.schema };
        const at = (method: string): Target => ({ doc, method, path: one, op: record[method] as Op, pointer: `${doc}.json#/paths/${escapePointer(one)}/${method}` });
        const resolve = resolver(doc);
        const samples = fc.sample(arbitraryOf(created.body, resolve), { numRuns: Math.max(3, Math.round(RUNS / 50)), seed: SEED });
        for (const sample of samples) {
          // Relationship ids: the one record every caller may point at, the walker.
          const body = doc === 'app' ? JSON.parse(JSON.stringify(sample).replace(/"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"/g, JSON.stringify(user.user.id))) : sample;
          const made = await check(created, 'create', {}, body);
          const id = (made.json as { id?: unknown } | undefined)?.id;
          if (made.status !== 201 || typeof id !== 'string') continue;
          const path = concretePath(one, { ...params[doc], [/\{(\w+)\}$/.exec(one)![1]]: id });
          expect((await check(at('get'), 'read', {}, undefined, path)).status).toBe(200);
          const update = record.patch ? 'patch' : record.put ? 'put' : null;
          if (update) {
            const updateSchema = (record[update] as Op).requestBody?.content?.['application/json']?.schema;
            const [changes] = fc.sample(arbitraryOf(updateSchema, resolve), { numRuns: 1, seed: SEED });
            await check(at(update), 'update', {}, doc === 'app' ? JSON.parse(JSON.stringify(changes).replace(/"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"/g, JSON.stringify(user.user.id))) : changes, path);
          }
          const removed = await check(at('delete'), 'delete', {}, undefined, path);
          expect(removed.status, `${doc} DELETE ${path}`).toBeLessThan(300);
          expect((await check(at('get'), 'read after delete', {}, undefined, path)).status, `${doc} GET ${path} after delete`).toBe(404);
          completed += 1;
          chains += 1;
        }
      }
    }
    expect(completed).toBeGreaterThan(1);
    expect(Object.fromEntries([...failures].map(([k, v]) => [k, v.slice(0, 8)]))).toEqual({});
  });
});
