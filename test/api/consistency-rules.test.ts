import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { todoScode } from '../support/examples.ts';
import type { AppDefinition, Field } from '../../src/definition/schema.ts';

type Problem = { status: number; errors: Array<{ path: string; message: string }> };

const extraField = (over: Partial<Field>): Field => ({
  id: 'urn:svc:edge:extra',
  name: 'extra',
  relationshipOwner: true,
  min: 0,
  max: 1,
  to: 'p_TEXT',
  accessControl: { rules: [] },
  ...over,
});

const http = (id: string, path: string, extra: Record<string, unknown> = {}) => ({
  trigger: { id, type: 'http' as const, method: 'POST' as const, path, ...extra },
  actionId: 'urn:svc:action:complete-todo',
  initialState: {},
  validation: [],
});

/** One case per consistency rule of DESIGN §4: how to break the example, and where the 409 must point. */
const RULES: Array<[string, (d: AppDefinition) => void, string]> = [
  ['duplicate model id', (d) => (d.models[1].id = d.models[0].id), '/models/1/id'],
  ['duplicate model name', (d) => (d.models[1].name = 'ToDo'), '/models/1/name'],
  ['duplicate field id', (d) => (d.models[1].fields[0].id = 'urn:svc:edge:todo-title'), '/models/1/fields/0/id'],
  ['duplicate field name in a model', (d) => (d.models[0].fields[1].name = 'title'), '/models/0/fields/1/name'],
  ['`to` pointing nowhere', (d) => (d.models[0].fields[4].to = 'urn:svc:model:nobody'), '/models/0/fields/4/to'],
  ['`to` neither model nor primitive', (d) => (d.models[0].fields[0].to = 'p_STRING'), '/models/0/fields/0/to'],
  ['userModelId pointing nowhere', (d) => (d.userModelId = 'urn:svc:model:member'), '/userModelId'],
  ['trigger actionId pointing nowhere', (d) => (d.triggers[0].actionId = 'urn:svc:action:nothing'), '/triggers/0/actionId'],
  ['startEffectId pointing nowhere', (d) => (d.actions[0].startEffectId = 'nowhere'), '/actions/0/startEffectId'],
  ['effect next pointing nowhere', (d) => (d.actions[0].effects[0].next = 'nowhere'), '/actions/0/effects/0/next'],
  ['effect onError.nextId pointing nowhere', (d) => (d.actions[0].effects[0].onError = { nextId: 'nowhere' }), '/actions/0/effects/0/onError/nextId'],
  ['action onError.nextId pointing nowhere', (d) => (d.actions[0].onError = { nextId: 'nowhere' }), '/actions/0/onError/nextId'],
  ['requirement reference pointing nowhere', (d) => (d.models[0].referenceRequirements = ['@requirement/nothing']), '/models/0/referenceRequirements/0'],
  [
    'relationship with two partners',
    (d) => d.models[1].fields.push(extraField({ id: 'urn:svc:edge:user-more', name: 'more', to: 'urn:svc:model:todo', max: null })),
    '/models/0/fields/4',
  ],
  ['min greater than max', (d) => (d.models[0].fields[0].min = 2), '/models/0/fields/0/min'],
  ['default not in enum', (d) => (d.models[0].fields[3].defaultValue = 'later'), '/models/0/fields/3/defaultValue'],
  ['enum of the wrong type', (d) => (d.models[0].fields[3].enum = ['open', 3]), '/models/0/fields/3/enum/1'],
  ['rule that does not parse', (d) => (d.models[0].accessControl.rules[0].criteria = 'auth != null &&'), '/models/0/accessControl/rules/0/criteria'],
  ['rule that does not type-check', (d) => (d.models[0].accessControl.rules[0].criteria = 'record.nope == auth.id'), '/models/0/accessControl/rules/0/criteria'],
  ['rule not translatable to SQL', (d) => (d.models[0].accessControl.rules[0].criteria = "record.title.matches('a+')"), '/models/0/accessControl/rules/0/criteria'],
  ['computed expression that does not type-check', (d) => (d.models[0].fields[1].computed = 'record.title + 1'), '/models/0/fields/1/computed'],
  ['validation that does not parse', (d) => (d.triggers[0].validation = ['auth ==']), '/triggers/0/validation/0'],
  ['bindParams expression that does not parse', (d) => (d.actions[0].effects[0].bindParams = { id: 'state.' }), '/actions/0/effects/0/bindParams/id'],
  [
    'two HTTP triggers on the same method and path',
    (d) => d.triggers.push(http('urn:svc:trigger:again', '/toDos/:todo/complete')),
    '/triggers/2/trigger/path',
  ],
  ['HTTP trigger on a generated route', (d) => d.triggers.push(http('urn:svc:trigger:shadow', '/toDos')), '/triggers/2/trigger/path'],
  ['unknown effect', (d) => (d.actions[0].effects[0].effect = 'data.teleport'), '/actions/0/effects/0/effect'],
  [
    'bad effect params',
    (d) => (d.actions[0].effects[3].params = { status: 'four hundred', message: 'No.' }),
    '/actions/0/effects/3/params/status',
  ],
  ['user model without email when auth is used', (d) => (d.models[1].fields[1].name = 'mail'), '/userModelId'],
];

describe('every consistency rule answers 409 with its pointer and changes nothing', () => {
  let t: TestPlatform;
  let tenant: Tenant;
  let app: AppReply;

  beforeAll(async () => {
    t = await startTestPlatform('pglite');
    tenant = await createTenant(t, 'Rules');
    app = await createTodoApp(tenant);
  });
  afterAll(() => t?.close());

  it.each(RULES)('%s', async (_name, mutate, pointer) => {
    const scode = todoScode() as unknown as AppDefinition;
    mutate(scode);
    const reply = await tenant.api.put<Problem>(`/v1/applications/${app.id}/scode`, scode);
    expect(reply.status, reply.text).toBe(409);
    expect(reply.headers.get('content-type')).toContain('application/problem+json');
    const paths = reply.body.errors.map((e) => e.path);
    expect(paths.some((p) => p === pointer || p.startsWith(`${pointer}/`)), `${pointer} in ${JSON.stringify(reply.body.errors)}`).toBe(true);
    for (const error of reply.body.errors) expect(error.message.length).toBeGreaterThan(5);
    const after = await tenant.api.get<AppReply>(`/v1/applications/${app.id}`);
    expect(after.body).toEqual(app);
    const versions = await tenant.api.get<{ metadata: { total: number } }>(`/v1/applications/${app.id}/versions`);
    expect(versions.body.metadata.total).toBe(1);
  });
});
