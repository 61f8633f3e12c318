// Property-based fuzzing of every write operation the service publishes: the management API's
// (/v1/openapi.json) and a published generated app's (…/openapi.json). Each case sends one
// operation, path parameters filled from real objects (or not), with a malformed or hostile body:
// NUL characters, unpaired surrogates, deep nesting, huge arrays, wrong types, prototype keys,
// text that is not JSON, other content types. No answer may be a 5xx, and the service must still
// answer afterwards. A fixed seed and FUZZ_RUNS cases per database (`npm run fuzz` sends more).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { concretePath, listOperations, sampleOf, type Operation } from '../support/openapi.ts';
import { publish, ServedApi } from '../runtime/served-app.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SEED = Number(process.env.FUZZ_SEED ?? 1818);
const WRITES = new Set(['POST', 'PUT', 'PATCH']);

type Schema = Record<string, unknown>;
type Caller = 'builder' | 'user' | 'anonymous';

/** One operation to fuzz: where it lives, who may call it, and the values of its path parameters. */
interface Target {
  op: Operation;
  base: string;
  callers: Caller[];
  params: Record<string, string>;
  sample: unknown;
}

/** `schema` with `#/components/schemas/…` references replaced, to `depth` levels. */
function resolve(schema: unknown, components: Record<string, Schema>, depth = 4): unknown {
  if (Array.isArray(schema)) return schema.map((s) => resolve(s, components, depth));
  if (typeof schema !== 'object' || schema === null) return schema;
  const ref = (schema as Schema).$ref;
  if (typeof ref === 'string' && depth > 0) return resolve(components[ref.split('/').pop()!], components, depth - 1);
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, resolve(value, components, depth)]));
}

// ------------------------------------------------------------------ hostile values

const hostileText = fc.oneof(
  fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '\udc00\ud800', '\u0000\ud83d', "'; drop table users; --", '${7*7}', '{{7*7}}', '../../etc/passwd', ''),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string().map((s) => `${s}\u0000${s}`),
  fc.integer({ min: 1000, max: 300_000 }).map((n) => 'x'.repeat(n)),
);

const hostileScalar = fc.oneof(
  hostileText,
  fc.integer(),
  fc.double(),
  fc.constantFrom(1e308, -1e308, 5e-324, 2 ** 63, -(2 ** 63), 99999999999999999999, 0.1, -1, true, false, null),
);

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'id', 'user', 'email', 'password', 'role'];

const { hostile } = fc.letrec((tie) => ({
  hostile: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileScalar,
    fc.array(tie('hostile'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...PROTO_KEYS), fc.string({ maxLength: 8 })), tie('hostile'), { maxKeys: 4 }),
  ),
}));

/** JSON text nested `depth` levels deep, as arrays or objects. */
const deepText = fc.tuple(fc.integer({ min: 60, max: 50_000 }), fc.boolean()).map(([depth, arrays]) =>
  arrays ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
);

/** A member of the body's sample (or `items`) set to an array of `n` elements. */
const hugeArrayText = (names: string[]) =>
  fc.tuple(fc.constantFrom(...names, 'items'), fc.integer({ min: 1_001, max: 200_000 }), fc.constantFrom('0', '{}', '"x"', 'null')).map(
    ([name, n, element]) => `{${JSON.stringify(name)}:[${Array(n).fill(element).join(',')}]}`,
  );

/** The operation's own sample body with one member replaced by a hostile value (or a prototype key added). */
function mutatedSample(sample: unknown) {
  const names = sample && typeof sample === 'object' && !Array.isArray(sample) ? Object.keys(sample) : [];
  return fc.tuple(fc.constantFrom(...names, ...PROTO_KEYS), hostile).map(([name, value]) => {
    const body: Record<string, unknown> = { ...(sample as Record<string, unknown>) };
    Object.defineProperty(body, name, { value, enumerable: true, configurable: true, writable: true });
    return JSON.stringify(body);
  });
}

const PROTO_TEXTS = [
  '{"__proto__":{"isPlatformAdmin":true,"role":"admin"}}',
  '{"constructor":{"prototype":{"isPlatformAdmin":true}}}',
  '{"name":"x","__proto__":null}',
  '[{"__proto__":{"polluted":1}}]',
];

/** The raw text and content type of one hostile body for `target`. */
function bodies(target: Target) {
  const names = target.sample && typeof target.sample === 'object' ? Object.keys(target.sample) : [];
  const text = fc.oneof(
    { weight: 4, arbitrary: mutatedSample(target.sample) },
    { weight: 2, arbitrary: hostile.map((value) => JSON.stringify(value) ?? 'null') },
    { weight: 1, arbitrary: deepText },
    { weight: 1, arbitrary: hugeArrayText(names) },
    { weight: 1, arbitrary: fc.constantFrom(...PROTO_TEXTS) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
    { weight: 1, arbitrary: fc.constantFrom('{"a":', '[1,2', '{"a" 1}', '"\\ud800"', '"\\u0000"', '{"\\u0000":1}', '{"a":"\\x"}', 'nul', '1e999999') },
  );
  const contentType = fc.oneof(
    { weight: 8, arbitrary: fc.constant('application/json') },
    { weight: 1, arbitrary: fc.constantFrom('application/x-www-form-urlencoded', 'text/plain', 'application/json; charset=latin1', 'application/merge-patch+json', 'multipart/form-data; boundary=x', '') },
  );
  return fc.record({ text, contentType, caller: fc.constantFrom(...target.callers), realParams: fc.boolean() });
}

describe.each(await availableDrivers())('hostile bodies on every write operation on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let served: AppReply;
  let api: ServedApi;
  let user: { token: string; user: { id: string } };
  const targets: Target[] = [];

  const headersOf = (caller: Caller): Record<string, string> => {
    if (caller === 'builder') return { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey! };
    if (caller === 'user') return { authorization: `Bearer ${user.token}` };
    return {};
  };

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Fuzzed');
    // One application the management operations may edit, publish or break, another one served.
    const edited = await createTodoApp(tenant);
    served = await createTodoApp(tenant);
    await publish(tenant, served.id);
    api = new ServedApi(t, tenant, served.id, served.serverVersion);
    user = await api.signup('Fuzz', 'fuzz@example.test');
    const todo = await api.post('/toDos', { title: 't', description: 'd', deadline: '2030-01-01T00:00:00Z', user: user.user.id }, user.token);
    expect(todo.status).toBe(201);

    const scode = edited.scode as unknown as {
      models: Array<{ id: string; fields: Array<{ id: string }> }>;
      actions: Array<{ id: string }>;
      triggers: Array<{ trigger: { id: string } }>;
    };
    const management: Record<string, string> = {
      applicationId: edited.id,
      projectId: tenant.projectId,
      modelId: scode.models[0].id,
      fieldId: scode.models[0].fields[0].id,
      actionId: scode.actions[0].id,
      triggerId: scode.triggers[0].trigger.id,
      serverVersion: edited.serverVersion,
    };
    for (const op of await listOperations(t.baseUrl)) {
      if (!WRITES.has(op.method)) continue;
      targets.push({ op, base: '', callers: op.secured ? ['builder', 'anonymous'] : ['anonymous'], params: management, sample: sampleOf(op.bodySchema ?? undefined) });
    }
    const appBase = new URL(api.base).pathname;
    const document = (await (await fetch(`${api.base}/openapi.json`)).json()) as { components?: { schemas?: Record<string, Schema> } };
    const components = document.components?.schemas ?? {};
    for (const op of await listOperations(t.baseUrl, `${appBase}/openapi.json`)) {
      if (!WRITES.has(op.method)) continue;
      const id = op.path.startsWith('/users') ? user.user.id : (todo.body.id as string);
      const schema = resolve(op.bodySchema, components) as Schema | undefined;
      // A log-out as the user (`{"all": true}` is a likely case) ends the session the last test reads with.
      const callers: Caller[] = op.path.endsWith('/logout') ? ['anonymous', 'builder'] : ['user', 'anonymous', 'builder'];
      targets.push({ op, base: appBase, callers, params: { id }, sample: sampleOf(schema ?? undefined) });
    }
  });
  afterAll(() => t?.close());

  it('found write operations in both documents', () => {
    expect(targets.filter((target) => target.base === '').length).toBeGreaterThan(20);
    expect(targets.filter((target) => target.base !== '').map((target) => `${target.op.method} ${target.op.path}`)).toEqual(
      expect.arrayContaining(['POST /auth/signup', 'POST /auth/login', 'POST /toDos', 'PATCH /toDos/{id}']),
    );
  });

  it(`answers no hostile body with a 5xx (${RUNS} cases, seed ${SEED})`, { timeout: Math.max(60_000, RUNS * 1_000) }, async () => {
    const statuses = new Map<number, number>();
    const cases = fc.constantFrom(...targets).chain((target) => fc.tuple(fc.constant(target), bodies(target)));
    await fc.assert(
      fc.asyncProperty(cases, async ([target, body]) => {
        const path = concretePath(target.op.path, body.realParams ? target.params : {});
        const headers: Record<string, string> = { ...headersOf(body.caller) };
        if (body.contentType) headers['content-type'] = body.contentType;
        const response = await fetch(`${t.baseUrl}${target.base}${path}`, { method: target.op.method, headers, body: body.text });
        const text = await response.text();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        // The fuzz app has no SMTP_URL: a signed-in user's verification request is refused whatever its
        // body (503, documented, saying so), which is the app's configuration, not the hostile body.
        const mailUnconfigured = response.status === 503 && text.includes('sends no mail');
        if (response.status >= 500 && !mailUnconfigured) throw new Error(`${target.op.method} ${target.base}${path} answered ${response.status}: ${text.slice(0, 300)}`);
        // Every refusal is a problem body.
        if (response.status >= 400 && response.status !== 429) expect(response.headers.get('content-type')).toContain('application/problem+json');
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    // The cases reached the validators, not only the parser: some 400s, some other answers.
    expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
    expect([...statuses.keys()].some((status) => status !== 400)).toBe(true);
  });

  it('still answers afterwards, the management API and the generated app', async () => {
    expect((await fetch(`${t.baseUrl}/healthz`)).status).toBe(200);
    expect((await tenant.api.get('/v1/projects')).status).toBe(200);
    const list = await api.get<{ items: unknown[] }>('/toDos', user.token);
    expect(list.status).toBe(200);
    expect(list.body.items.length).toBeGreaterThanOrEqual(1);
    const fresh = await api.signup('After', 'after@example.test');
    const login = await api.post('/auth/login', { email: 'after@example.test', password: 'correct horse' });
    expect(login.status).toBe(200);
    expect((login.body as unknown as { user: { id: string } }).user.id).toBe(fresh.user.id);
  });
});
