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

/** One case per consistency rule of DESIGN §4: how to break the example, where the 409 (or the status given) must point. */
const RULES: Array<[string, (d: AppDefinition) => void, string, number?]> = [
  ['duplicate model id', (d) => (d.models[1].id = d.models[0].id), '/models/1/id'],
  ['duplicate model name', (d) => (d.models[1].name = 'ToDo'), '/models/1/name'],
  ['duplicate field id', (d) => (d.models[1].fields[0].id = 'urn:svc:edge:todo-title'), '/models/1/fields/0/id'],
  ['duplicate field name in a model', (d) => (d.models[0].fields[1].name = 'title'), '/models/0/fields/1/name'],
  ['`to` pointing nowhere', (d) => (d.models[0].fields[4].to = 'urn:svc:model:nobody'), '/models/0/fields/4/to'],
  // Outside the documented enum of field types (a model id is the other choice): the body's schema refuses it, 400.
  ['`to` neither model nor primitive', (d) => (d.models[0].fields[0].to = 'p_STRING'), '/models/0/fields/0/to', 400],
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

const httpOf = (d: AppDefinition) => d.triggers[0].trigger as { path: string; matchSelectors?: string[] };
const eventOf = (d: AppDefinition) => d.triggers[1].trigger as { eventName: string; payload: Record<string, unknown> };

/**
 * The rules src/definition/consistency/ enforces beyond DESIGN §4's list (each
 * also unit-tested in test/definition/consistency.test.ts), through the API.
 */
const MORE_RULES: Array<[string, (d: AppDefinition) => void, string]> = [
  // models and fields (consistency/models.ts)
  ['model names giving the same resource name', (d) => (d.models[1].name = 'To do'), '/models/1/name'],
  ['model name without a letter or digit', (d) => (d.models[1].name = '--'), '/models/1/name'],
  ['field named id (reserved)', (d) => (d.models[0].fields[1].name = 'id'), '/models/0/fields/1/name'],
  ['negative min', (d) => (d.models[0].fields[1].min = -1), '/models/0/fields/1/min'],
  ['fractional min', (d) => (d.models[0].fields[1].min = 0.5), '/models/0/fields/1/min'],
  ['max below 1', (d) => (d.models[0].fields[1].max = 0), '/models/0/fields/1/max'],
  ['duplicate enum value', (d) => (d.models[0].fields[3].enum = ['open', 'open']), '/models/0/fields/3/enum/1'],
  ['empty enum', (d) => (d.models[0].fields[3].enum = []), '/models/0/fields/3/enum'],
  ['enum on a structured type', (d) => d.models[0].fields.push(extraField({ to: 'p_ADDRESS', enum: ['home'] })), '/models/0/fields/5/enum'],
  ['defaultValue of the wrong type', (d) => (d.models[0].fields[2].defaultValue = 12), '/models/0/fields/2/defaultValue'],
  ['defaultValue of a list field not a list', (d) => d.models[0].fields.push(extraField({ max: null, defaultValue: 'a' })), '/models/0/fields/5/defaultValue'],
  ['enum on a relationship field', (d) => (d.models[0].fields[4].enum = ['x']), '/models/0/fields/4/enum'],
  ['computed relationship field', (d) => (d.models[0].fields[4].computed = 'auth.id'), '/models/0/fields/4/computed'],
  // relationship pairs (consistency/relationships.ts)
  ['both sides relationshipOwner false', (d) => (d.models[1].fields[2].relationshipOwner = false), '/models/0/fields/4/relationshipOwner'],
  ['to-one side of a one-to-many owning the relationship', (d) => (d.models[0].fields[4].relationshipOwner = true), '/models/0/fields/4/relationshipOwner'],
  [
    'one-to-one with no foreign-key side',
    (d) => {
      d.models[1].fields[2].max = 1;
      d.models[0].fields[4].relationshipOwner = true;
    },
    '/models/0/fields/4/relationshipOwner',
  ],
  // actions and effects (consistency/actions.ts, effect-catalogue.ts)
  ['duplicate action id', (d) => (d.actions[1].id = d.actions[0].id), '/actions/1/id'],
  ['duplicate effect id within an action', (d) => (d.actions[0].effects[1].actionEffectId = 'load'), '/actions/0/effects/1/actionEffectId'],
  ['flow.if else pointing nowhere', (d) => (d.actions[0].effects[1].params = { else: 'nope' }), '/actions/0/effects/1/params/else'],
  [
    'flow.forEach body pointing nowhere',
    (d) => d.actions[0].effects.push({ actionEffectId: 'loop', effect: 'flow.forEach', params: { items: [], body: 'nope' } }),
    '/actions/0/effects/4/params/body',
  ],
  ['missing effect param', (d) => (d.actions[0].effects[3].params = { status: 403 }), '/actions/0/effects/3/params'],
  ['data effect naming no model', (d) => (d.actions[0].effects[0].params = { model: 'Task' }), '/actions/0/effects/0/params/model'],
  [
    'data effect writing a field the model lacks',
    (d) => (d.actions[0].effects[2].params = { model: 'ToDo', values: { state: 'done' } }),
    '/actions/0/effects/2/params/values/state',
  ],
  // triggers (consistency/triggers.ts)
  ['duplicate trigger id', (d) => (d.triggers[1].trigger.id = d.triggers[0].trigger.id), '/triggers/1/trigger/id'],
  ['HTTP path without a leading slash', (d) => (httpOf(d).path = 'toDos/:id'), '/triggers/0/trigger/path'],
  ['HTTP path with a {param}', (d) => (httpOf(d).path = '/toDos/{id}'), '/triggers/0/trigger/path'],
  ['HTTP path with an empty segment', (d) => (httpOf(d).path = '/a//b'), '/triggers/0/trigger/path'],
  ['HTTP path with an unnamed parameter', (d) => (httpOf(d).path = '/a/:'), '/triggers/0/trigger/path'],
  ['HTTP path parameter used twice', (d) => (httpOf(d).path = '/a/:id/b/:id'), '/triggers/0/trigger/path'],
  [
    'shared route with matchSelectors on one side only',
    (d) => {
      httpOf(d).matchSelectors = ['true'];
      d.triggers.push(http('urn:svc:trigger:again', '/toDos/:x/complete'));
    },
    '/triggers/2/trigger/path',
  ],
  ['schedule without a cron', (d) => (eventOf(d).eventName = 'schedule'), '/triggers/1/trigger/payload/cron'],
  ['schedule cron with the wrong number of fields', (d) => Object.assign(eventOf(d), { eventName: 'schedule', payload: { cron: '0 8 *' } }), '/triggers/1/trigger/payload/cron'],
  [
    'schedule timezone not a name',
    (d) => Object.assign(eventOf(d), { eventName: 'schedule', payload: { cron: '0 8 * * *', timezone: 2 } }),
    '/triggers/1/trigger/payload/timezone',
  ],
  // requirements (consistency/requirements.ts)
  ['duplicate requirement id', (d) => (d.requirements[1].id = d.requirements[0].id), '/requirements/1/id'],
  ['parent requirement pointing nowhere', (d) => (d.requirements[0].parentId = '@requirement/ghost'), '/requirements/0/parentId'],
  ['requirement its own parent', (d) => (d.requirements[0].parentId = '@requirement/track-todos'), '/requirements/0/parentId'],
  ['userJourneyStep whose parent is a requirement', (d) => (d.requirements[1].parentId = '@requirement/track-todos'), '/requirements/1/parentId'],
  ['action requirement reference pointing nowhere', (d) => (d.actions[0].referenceRequirements = ['@requirement/ghost']), '/actions/0/referenceRequirements/0'],
  ['trigger requirement reference pointing nowhere', (d) => (d.triggers[0].referenceRequirements = ['@requirement/ghost']), '/triggers/0/referenceRequirements/0'],
  // the user model (consistency/auth.ts)
  ['email field that is not a single text', (d) => (d.models[1].fields[1].max = null), '/models/1/fields/1'],
  // every other expression site (consistency/expression-sites.ts)
  ['field access rule that does not type-check', (d) => (d.models[0].fields[0].accessControl.rules = [{ access: 'allow', criteria: 'record.nope' }]), '/models/0/fields/0/accessControl/rules/0/criteria'],
  ['matchSelector that does not parse', (d) => (httpOf(d).matchSelectors = ['request.query.mode ==']), '/triggers/0/trigger/matchSelectors/0'],
  ['initialState expression that does not parse', (d) => (d.triggers[0].initialState = { todoId: 'request.params.' }), '/triggers/0/initialState/todoId'],
  [
    'data.find filter that does not type-check',
    (d) => d.actions[1].effects.push({ actionEffectId: 'find', effect: 'data.find', params: { model: 'ToDo', filter: 'record.nope == 1' } }),
    '/actions/1/effects/1/params/filter',
  ],
  ['bindReturnValue that does not parse', (d) => (d.actions[0].bindReturnValue = 'results.'), '/actions/0/bindReturnValue'],
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

  it.each([...RULES, ...MORE_RULES])('%s', async (_name, mutate, pointer, status = 409) => {
    const scode = todoScode() as unknown as AppDefinition;
    mutate(scode);
    const reply = await tenant.api.put<Problem>(`/v1/applications/${app.id}/scode`, scode);
    expect(reply.status, reply.text).toBe(status);
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
