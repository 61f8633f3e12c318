// Computed fields in the per-version OpenAPI (issue 17, a known gap): each one's schema follows the
// type the CEL checker infers for its expression (nullable, read-only), and what the served API
// answers for them validates against it, whether the value was computed in SQL or in JS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildOpenApi } from '../../src/runtime/docs/openapi.ts';
import { schemaOfCelType } from '../../src/runtime/docs/computed-schema.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp } from '../support/tenant.ts';
import { modelDef, TODO, todoApp } from './fixture.ts';
import { publish, ServedApi, todoScodeWithoutEvents, type Page } from './served-app.ts';

const COMPUTED: Array<[name: string, expression: string, schema: Record<string, unknown>]> = [
  ['label', "record.title + ' (' + record.status + ')'", { anyOf: [{ type: 'string' }, { type: 'null' }], readOnly: true }],
  ['titleLength', 'record.title.size()', { anyOf: [{ type: 'integer' }, { type: 'null' }], readOnly: true }],
  ['half', 'double(record.title.size()) / 2.0', { anyOf: [{ type: 'number' }, { type: 'null' }], readOnly: true }],
  ['isDone', "record.status == 'done'", { anyOf: [{ type: 'boolean' }, { type: 'null' }], readOnly: true }],
  ['due', 'record.deadline', { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }], readOnly: true }],
  ['words', "record.title.split(' ')", { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }], readOnly: true }],
];

function withComputed<T extends object>(scode: T): T {
  const todo = modelDef(scode as never, TODO);
  for (const [name, computed] of COMPUTED) {
    todo.fields.push({ id: `urn:svc:edge:todo-${name.toLowerCase()}`, name, computed, relationshipOwner: true, min: 0, max: 1, to: 'p_TEXT', accessControl: { rules: [] } });
  }
  return scode;
}

describe('computed fields typed in the per-version OpenAPI', () => {
  it('maps the checker types to JSON Schema', () => {
    expect(schemaOfCelType('string')).toEqual({ type: 'string' });
    expect(schemaOfCelType('dyn<google.protobuf.Timestamp>')).toEqual({ type: 'string', format: 'date-time' });
    expect(schemaOfCelType('list<dyn<string>>')).toEqual({ type: 'array', items: { type: 'string' } });
    expect(schemaOfCelType('map<string, list<int>>')).toEqual({ type: 'object', additionalProperties: { type: 'array', items: { type: 'integer' } } });
    expect(schemaOfCelType('dyn')).toEqual({});
  });

  it('gives each computed field the schema of its expression type', () => {
    const app = todoApp((scode) => withComputed(scode));
    const doc = buildOpenApi(app, { serverUrl: '/x' }) as unknown as { components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> } };
    for (const [name, expression, schema] of COMPUTED) {
      const { description, ...rest } = doc.components.schemas.ToDo.properties[name];
      expect(rest, name).toEqual(schema);
      expect(String(description)).toContain(expression);
      expect(doc.components.schemas.ToDoEmbedded.properties[name]).toMatchObject(schema);
      expect(doc.components.schemas.ToDoCreate.properties[name]).toBeUndefined();
    }
  });
});

describe('computed values as served validate against their schemas', () => {
  let t: TestPlatform;
  let api: ServedApi;

  beforeAll(async () => {
    t = await startTestPlatform('pglite');
    const tenant = await createTenant(t, 'Computed');
    const created = await createTodoApp(tenant, withComputed(todoScodeWithoutEvents()));
    await publish(tenant, created.id);
    api = new ServedApi(t, tenant, created.id, created.serverVersion);
  }, 120_000);
  afterAll(() => t?.close());

  it('answers values of the documented types', async () => {
    const ann = await api.signup('Ann', 'ann@example.com');
    expect((await api.post('/toDos', { title: 'Write the docs', deadline: '2030-01-02T03:04:05.000Z' }, ann.token)).status).toBe(201);
    expect((await api.post('/toDos', { title: 'Undated', status: 'done' }, ann.token)).status).toBe(201);
    const doc = (await api.get<Record<string, unknown>>('/openapi.json')).body;
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    ajv.addSchema(doc, 'doc');
    const page = await api.get<Page>('/toDos', ann.token);
    expect(page.body.total).toBe(2);
    const validate = ajv.getSchema('doc#/components/schemas/ToDoPage')!;
    expect(validate(page.body), JSON.stringify(validate.errors)).toBe(true);
    const [dated, undated] = page.body.items;
    expect(dated).toMatchObject({ label: 'Write the docs (open)', titleLength: 14, half: 7, isDone: false, words: ['Write', 'the', 'docs'] });
    expect(dated.due).toBe('2030-01-02T03:04:05.000Z');
    expect(undated).toMatchObject({ isDone: true, due: null });
    // A value of another type would not validate: the schemas are not `{}`.
    expect(validate({ ...page.body, items: [{ ...dated, titleLength: 'fourteen' }] })).toBe(false);
    // Narrowed by fields=: computed in JS (`half`, `words`) or in SQL (`label`) from members not asked for, which stay out.
    const narrow = await api.get<Page>('/toDos?fields=half,words,label&limit=1', ann.token);
    expect(narrow.body.items).toEqual([{ id: dated.id, half: 7, words: ['Write', 'the', 'docs'], label: 'Write the docs (open)' }]);
    const one = await api.get(`/toDos/${dated.id}?fields=half`, ann.token);
    expect(one.body).toEqual({ id: dated.id, half: 7 });
  });
});
