import { describe, expect, it } from 'vitest';
import { Problem, type ProblemDetail } from '../../src/errors.ts';
import type { AppDefinition, Field } from '../../src/definition/schema.ts';
import { validateDefinition } from '../../src/definition/validate.ts';
import { acceptAll, todo } from './fixtures/index.ts';

/** The 409 details of the example after `mutate` (expressions accepted: see expressions.test.ts). */
function problemsAfter(mutate: (d: AppDefinition) => void): ProblemDetail[] {
  const def = todo();
  mutate(def);
  try {
    validateDefinition(def, { expressions: acceptAll });
  } catch (error) {
    if (error instanceof Problem && error.status === 409) {
      expect(error.message).toBe('The definition is inconsistent.');
      return error.errors;
    }
    throw error;
  }
  return [];
}

function expectProblem(mutate: (d: AppDefinition) => void, path: string, message?: RegExp): void {
  const problems = problemsAfter(mutate);
  const hit = problems.find((p) => p.path === path);
  expect(hit, `expected a problem at ${path}, got ${JSON.stringify(problems)}`).toBeDefined();
  if (message) expect(hit?.message).toMatch(message);
}

const field = (over: Partial<Field>): Field => ({
  id: 'urn:svc:edge:extra',
  name: 'extra',
  relationshipOwner: true,
  min: 0,
  max: 1,
  to: 'p_TEXT',
  accessControl: { rules: [] },
  ...over,
});

describe('the to-do example', () => {
  it('is consistent', () => {
    expect(problemsAfter(() => {})).toEqual([]);
    expect(validateDefinition(todo(), { expressions: acceptAll }).appId).toBe('todo');
  });
  it('is valid with the real expression module too', () => {
    expect(validateDefinition(todo()).models).toHaveLength(2);
  });
});

describe('models and fields', () => {
  it('duplicate model ids', () => {
    expectProblem((d) => (d.models[1].id = d.models[0].id), '/models/1/id', /Duplicate model id/);
  });
  it('duplicate model names', () => {
    expectProblem((d) => (d.models[1].name = 'ToDo'), '/models/1/name', /Duplicate model name/);
  });
  it('model names giving the same resource name', () => {
    expectProblem((d) => (d.models[1].name = 'To do'), '/models/1/name', /resource name 'toDos'/);
  });
  it('duplicate field ids across the whole app', () => {
    expectProblem((d) => (d.models[1].fields[0].id = 'urn:svc:edge:todo-title'), '/models/1/fields/0/id', /Duplicate field id/);
  });
  it('duplicate field names within a model', () => {
    expectProblem((d) => (d.models[0].fields[1].name = 'title'), '/models/0/fields/1/name', /Duplicate field name/);
  });
  it('the same field name in two models is fine', () => {
    expect(problemsAfter((d) => (d.models[1].fields[0].name = 'title'))).toEqual([]);
  });
  it('a field named id', () => {
    expectProblem((d) => (d.models[0].fields[1].name = 'id'), '/models/0/fields/1/name', /reserved/);
  });
  it('`to` pointing to no model', () => {
    expectProblem((d) => (d.models[0].fields[4].to = 'urn:svc:model:nobody'), '/models/0/fields/4/to', /neither a model id/);
  });
  it('`to` neither model nor primitive', () => {
    expectProblem((d) => (d.models[0].fields[0].to = 'p_STRING'), '/models/0/fields/0/to');
  });
  it('userModelId pointing nowhere', () => {
    expectProblem((d) => (d.userModelId = 'urn:svc:model:member'), '/userModelId', /No model/);
  });
  it('min greater than max', () => {
    expectProblem((d) => (d.models[0].fields[0].min = 2), '/models/0/fields/0/min', /greater than max/);
  });
  it('negative min', () => {
    expectProblem((d) => (d.models[0].fields[1].min = -1), '/models/0/fields/1/min');
  });
  it('max below 1', () => {
    expectProblem((d) => (d.models[0].fields[1].max = 0), '/models/0/fields/1/max');
  });
  it('enum values of the wrong type', () => {
    expectProblem((d) => (d.models[0].fields[3].enum = ['open', 2]), '/models/0/fields/3/enum/1', /not a string/);
  });
  it('duplicate enum values', () => {
    expectProblem((d) => (d.models[0].fields[3].enum = ['open', 'open']), '/models/0/fields/3/enum/1', /Duplicate/);
  });
  it('defaultValue not in the enum', () => {
    expectProblem((d) => (d.models[0].fields[3].defaultValue = 'later'), '/models/0/fields/3/defaultValue', /enum/);
  });
  it('defaultValue of the wrong type', () => {
    expectProblem((d) => (d.models[0].fields[2].defaultValue = 12), '/models/0/fields/2/defaultValue', /date-time/);
  });
  it('defaultValue of a list field must be a list', () => {
    expectProblem(
      (d) => d.models[0].fields.push(field({ name: 'tags', max: null, defaultValue: 'a' })),
      '/models/0/fields/5/defaultValue',
      /array/,
    );
    expect(problemsAfter((d) => d.models[0].fields.push(field({ name: 'tags', max: null, defaultValue: ['a'] })))).toEqual([]);
  });
  it('enum on a relationship field', () => {
    expectProblem((d) => (d.models[0].fields[4].enum = ['x']), '/models/0/fields/4/enum', /relationship/);
  });
  it('computed relationship field', () => {
    expectProblem((d) => (d.models[0].fields[4].computed = 'auth.id'), '/models/0/fields/4/computed', /relationship/);
  });
});

describe('relationships', () => {
  it('a relationship with two partners', () => {
    expectProblem(
      (d) => d.models[0].fields.push(field({ name: 'assignee', relationshipOwner: false, to: 'urn:svc:model:user' })),
      '/models/1/fields/2/to',
      /2 partner fields/,
    );
  });
  it('both sides relationshipOwner false', () => {
    expectProblem((d) => (d.models[1].fields[2].relationshipOwner = false), '/models/0/fields/4/relationshipOwner', /Both/);
  });
  it('the to-one side of a one-to-many must be the belongs-to pointer', () => {
    expectProblem((d) => (d.models[0].fields[4].relationshipOwner = true), '/models/0/fields/4/relationshipOwner', /must be false/);
  });
  it('a one-to-one with no foreign-key side is ambiguous', () => {
    expectProblem(
      (d) => {
        d.models[1].fields[2].max = 1;
        d.models[0].fields[4].relationshipOwner = true;
      },
      '/models/0/fields/4/relationshipOwner',
      /ambiguous/,
    );
  });
  it('many-to-many and one-way pointers are allowed', () => {
    expect(problemsAfter((d) => (d.models[0].fields[4].max = null))).toEqual([]);
    expect(problemsAfter((d) => d.models[1].fields.splice(2, 1))).toEqual([]);
  });
});

describe('actions and effects', () => {
  it('duplicate action ids', () => {
    expectProblem((d) => (d.actions[1].id = d.actions[0].id), '/actions/1/id', /Duplicate action id/);
  });
  it('duplicate effect ids within an action', () => {
    expectProblem((d) => (d.actions[0].effects[1].actionEffectId = 'load'), '/actions/0/effects/1/actionEffectId');
  });
  it('the same effect id in two actions is fine', () => {
    expect(problemsAfter((d) => (d.actions[1].effects[0].actionEffectId = 'load', (d.actions[1].startEffectId = 'load')))).toEqual([]);
  });
  it('startEffectId pointing nowhere', () => {
    expectProblem((d) => (d.actions[0].startEffectId = 'begin'), '/actions/0/startEffectId', /begin/);
  });
  it('next pointing nowhere', () => {
    expectProblem((d) => (d.actions[0].effects[0].next = 'nowhere'), '/actions/0/effects/0/next');
  });
  it('effect onError.nextId pointing nowhere', () => {
    expectProblem((d) => (d.actions[0].effects[2].onError = { nextId: 'oops' }), '/actions/0/effects/2/onError/nextId');
  });
  it('action onError.nextId pointing nowhere', () => {
    expectProblem((d) => (d.actions[0].onError = { nextId: 'oops', continueOriginalFlow: true }), '/actions/0/onError/nextId');
  });
  it('flow.if else pointing nowhere', () => {
    expectProblem((d) => (d.actions[0].effects[1].params = { else: 'nope' }), '/actions/0/effects/1/params/else');
  });
  it('flow.forEach body pointing nowhere', () => {
    expectProblem(
      (d) => d.actions[0].effects.push({ actionEffectId: 'loop', effect: 'flow.forEach', params: { items: [], body: 'nope' } }),
      '/actions/0/effects/4/params/body',
    );
  });
  it('an unknown effect', () => {
    expectProblem((d) => (d.actions[0].effects[0].effect = 'data.fetch'), '/actions/0/effects/0/effect', /Unknown effect/);
  });
  it('a missing effect param', () => {
    expectProblem((d) => (d.actions[0].effects[3].params = { status: 403 }), '/actions/0/effects/3/params', /'message'/);
  });
  it('an effect param of the wrong type', () => {
    expectProblem((d) => (d.actions[0].effects[3].params!.status = 'forbidden'), '/actions/0/effects/3/params/status');
  });
  it('a data effect naming no model', () => {
    expectProblem((d) => (d.actions[0].effects[0].params = { model: 'Task' }), '/actions/0/effects/0/params/model', /Task/);
  });
  it('a data effect writing a field the model lacks', () => {
    expectProblem(
      (d) => (d.actions[0].effects[2].params = { model: 'ToDo', values: { state: 'done' } }),
      '/actions/0/effects/2/params/values/state',
    );
  });
  it('a model named by id is fine', () => {
    expect(problemsAfter((d) => (d.actions[0].effects[0].params = { model: 'urn:svc:model:todo' }))).toEqual([]);
  });
  it('a next chain that loops is allowed, and so are unreachable effects', () => {
    expect(problemsAfter((d) => (d.actions[0].effects[2].next = 'load'))).toEqual([]);
    expect(problemsAfter((d) => d.actions[1].effects.push({ actionEffectId: 'spare', effect: 'flow.set', params: { name: 'x', value: 1 } }))).toEqual([]);
  });
});

describe('triggers', () => {
  const secondRoute = (d: AppDefinition, path: string, selectors?: [string[] | undefined, string[] | undefined]) => {
    const copy = structuredClone(d.triggers[0]);
    copy.trigger.id = 'urn:svc:trigger:other';
    if (copy.trigger.type === 'http') {
      copy.trigger.path = path;
      if (selectors?.[1]) copy.trigger.matchSelectors = selectors[1];
    }
    if (d.triggers[0].trigger.type === 'http' && selectors?.[0]) d.triggers[0].trigger.matchSelectors = selectors[0];
    d.triggers.push(copy);
  };
  it('duplicate trigger ids', () => {
    expectProblem((d) => (d.triggers[1].trigger.id = d.triggers[0].trigger.id), '/triggers/1/trigger/id', /Duplicate trigger id/);
  });
  it('actionId pointing nowhere', () => {
    expectProblem((d) => (d.triggers[0].actionId = 'urn:svc:action:nope'), '/triggers/0/actionId');
  });
  it('an HTTP path of the wrong shape', () => {
    for (const bad of ['toDos/:id', '/toDos/{id}', '/a//b', '/a/:']) {
      expectProblem((d) => d.triggers[0].trigger.type === 'http' && (d.triggers[0].trigger.path = bad), '/triggers/0/trigger/path', /shaped/);
    }
  });
  it('a path parameter used twice', () => {
    expectProblem((d) => d.triggers[0].trigger.type === 'http' && (d.triggers[0].trigger.path = '/a/:id/b/:id'), '/triggers/0/trigger/path', /twice/);
  });
  it('two triggers on the same method and path (params normalised) without matchSelectors', () => {
    expectProblem((d) => secondRoute(d, '/toDos/:todoId/complete'), '/triggers/2/trigger/path', /matchSelectors/);
  });
  it('matchSelectors on one side only is not enough', () => {
    expectProblem((d) => secondRoute(d, '/toDos/:x/complete', [['true'], undefined]), '/triggers/2/trigger/path');
  });
  it('matchSelectors on both sides allow sharing a route', () => {
    expect(problemsAfter((d) => secondRoute(d, '/toDos/:x/complete', [['true'], ['false']]))).toEqual([]);
  });
  it('a trigger clashing with a generated route', () => {
    const clash = (method: 'PATCH' | 'POST', path: string) => (d: AppDefinition) => {
      if (d.triggers[0].trigger.type === 'http') Object.assign(d.triggers[0].trigger, { method, path });
    };
    expectProblem(clash('PATCH', '/toDos/:todoId'), '/triggers/0/trigger/path', /generated/);
    expectProblem(clash('POST', '/auth/login'), '/triggers/0/trigger/path', /generated/);
    expect(problemsAfter(clash('POST', '/toDos/:todoId'))).toEqual([]);
  });
  it('a trigger with matchSelectors may share a generated route (it takes only what it selects)', () => {
    const selective = (d: AppDefinition) => {
      if (d.triggers[0].trigger.type === 'http') {
        Object.assign(d.triggers[0].trigger, { method: 'PATCH', path: '/toDos/:todoId', matchSelectors: ["request.query.mode == 'complete'"] });
      }
    };
    expect(problemsAfter(selective)).toEqual([]);
  });
  it('the realtime endpoints are never a trigger path, even with matchSelectors (served beside the router)', () => {
    for (const path of ['/realtime', '/realtime/ws']) {
      const take = (d: AppDefinition) => {
        if (d.triggers[0].trigger.type === 'http') Object.assign(d.triggers[0].trigger, { method: 'GET', path, matchSelectors: ['true'] });
      };
      expectProblem(take, '/triggers/0/trigger/path', /realtime endpoint/);
    }
  });
  it('a schedule trigger needs a cron', () => {
    expectProblem(
      (d) => d.triggers[1].trigger.type === 'event' && (d.triggers[1].trigger.eventName = 'schedule'),
      '/triggers/1/trigger/payload/cron',
    );
    expect(problemsAfter((d) => {
      if (d.triggers[1].trigger.type === 'event') Object.assign(d.triggers[1].trigger, { eventName: 'schedule', payload: { cron: '0 8 * * *' } });
    })).toEqual([]);
  });
});

describe('requirements', () => {
  it('duplicate requirement ids', () => {
    expectProblem((d) => (d.requirements[1].id = d.requirements[0].id), '/requirements/1/id');
  });
  it('referenceRequirements pointing nowhere (model, action, trigger)', () => {
    const problems = problemsAfter((d) => {
      d.models[0].referenceRequirements = ['@requirement/ghost'];
      d.actions[0].referenceRequirements = ['@requirement/complete-todo', '@requirement/ghost'];
      d.triggers[0].referenceRequirements = ['@requirement/ghost'];
    });
    expect(problems.map((p) => p.path)).toEqual([
      '/models/0/referenceRequirements/0',
      '/actions/0/referenceRequirements/1',
      '/triggers/0/referenceRequirements/0',
    ]);
  });
  it('a parent requirement that does not exist', () => {
    expectProblem((d) => (d.requirements[0].parentId = '@requirement/ghost'), '/requirements/0/parentId');
  });
  it('a user-journey step whose parent is a requirement', () => {
    expectProblem((d) => (d.requirements[1].parentId = '@requirement/track-todos'), '/requirements/1/parentId', /user journey/);
  });
});

describe('the user model when the app authenticates', () => {
  it('needs an email field', () => {
    expectProblem((d) => d.models[1].fields.splice(1, 1), '/userModelId', /email/);
  });
  it('needs the email field to be a single text', () => {
    expectProblem((d) => (d.models[1].fields[1].max = null), '/models/1/fields/1', /email/);
  });
  it('is free of the rule when nothing uses auth', () => {
    const problems = problemsAfter((d) => {
      d.models[1].fields.splice(1, 1);
      for (const field of d.models[0].fields) delete field.defaultValue; // `user` defaults to auth.id
      d.models.forEach((m) => (m.accessControl = { rules: [{ access: 'allow', criteria: 'true' }] }));
      d.triggers[0].isPublic = true;
      d.triggers[0].validation = [];
      d.actions[0].effects[1].bindParams = { condition: 'results.load.user != null' };
    });
    expect(problems).toEqual([]);
  });
});

describe('all problems at once', () => {
  it('lists every problem, not only the first', () => {
    const problems = problemsAfter((d) => {
      d.models[0].fields[0].min = 5;
      d.actions[0].startEffectId = 'x';
      d.triggers[1].actionId = 'urn:svc:action:x';
    });
    expect(problems.map((p) => p.path)).toEqual(['/models/0/fields/0/min', '/actions/0/startEffectId', '/triggers/1/actionId']);
  });
});
