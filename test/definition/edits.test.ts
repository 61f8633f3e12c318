import { describe, expect, it } from 'vitest';
import { Problem } from '../../src/errors.ts';
import {
  addAction,
  createField,
  createModel,
  createTrigger,
  deleteAction,
  deleteField,
  deleteModel,
  deleteTrigger,
  replaceSection,
  updateAction,
  updateField,
  updateModel,
  updateTrigger,
} from '../../src/definition/edits/index.ts';
import type { AppDefinition, Trigger } from '../../src/definition/schema.ts';
import { validateDefinition } from '../../src/definition/validate.ts';
import { acceptAll, todo } from './fixtures/index.ts';

/** The input, frozen: an edit that mutates it throws (ESM is strict mode). */
function frozen(): AppDefinition {
  const freeze = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    Object.freeze(value);
    Object.values(value).forEach(freeze);
  };
  const def = todo();
  freeze(def);
  return def;
}

/** Runs `fn` and returns the Problem it throws. */
function problemOf(fn: () => unknown): Problem {
  try {
    fn();
  } catch (error) {
    if (error instanceof Problem) return error;
    throw error;
  }
  throw new Error('expected a Problem');
}

const valid = (def: AppDefinition) => validateDefinition(def, { expressions: acceptAll });
const TODO = 'urn:svc:model:todo';
const USER = 'urn:svc:model:user';
const model = (def: AppDefinition, id: string) => def.models.find((m) => m.id === id)!;
const field = (def: AppDefinition, modelId: string, fieldId: string) => model(def, modelId).fields.find((f) => f.id === fieldId);

describe('updateModel', () => {
  it('renames, carrying the name over to effects and data-change events; input untouched', () => {
    const def = frozen();
    const next = updateModel(def, USER, { name: 'Member' });
    expect(model(next, USER).name).toBe('Member');
    expect(next.triggers[1].trigger).toMatchObject({ eventName: 'Member.created' });
    expect(def).toEqual(todo());
    valid(next);
    const renamedTodo = updateModel(def, TODO, { name: 'Task' });
    expect(renamedTodo.actions[0].effects[0].params?.model).toBe('Task');
    expect(renamedTodo.actions[1].effects[0].params?.model).toBe('Task');
  });

  it('replaces the access control only', () => {
    const accessControl = { rules: [{ access: 'allow' as const, criteria: 'true' }], defaultAccess: 'deny' as const };
    const next = updateModel(frozen(), TODO, { accessControl });
    expect(model(next, TODO).accessControl).toEqual(accessControl);
    expect(model(next, TODO).name).toBe('ToDo');
  });

  it('404 naming the model id', () => {
    const p = problemOf(() => updateModel(frozen(), 'urn:svc:model:nope', { name: 'X' }));
    expect(p.status).toBe(404);
    expect(p.errors[0].path).toBe('/modelId');
    expect(p.message).toContain('urn:svc:model:nope');
  });
});

describe('updateField', () => {
  it('patches members; null removes enum, defaultValue, computed', () => {
    const def = frozen();
    const next = updateField(def, TODO, 'urn:svc:edge:todo-status', { name: 'state', enum: null, defaultValue: null, min: 0 });
    const f = field(next, TODO, 'urn:svc:edge:todo-status')!;
    expect(f).toMatchObject({ name: 'state', min: 0, to: 'p_TEXT' });
    expect('enum' in f).toBe(false);
    expect('defaultValue' in f).toBe(false);
    expect(field(def, TODO, 'urn:svc:edge:todo-status')!.enum).toEqual(['open', 'done']);
  });

  it('sets enum, defaultValue, computed, to and max', () => {
    const next = updateField(frozen(), TODO, 'urn:svc:edge:todo-description', {
      to: 'p_NUMBER',
      enum: [1, 2, 3],
      defaultValue: 2,
      max: null,
      computed: '1 + 1',
    });
    expect(field(next, TODO, 'urn:svc:edge:todo-description')).toMatchObject({
      to: 'p_NUMBER',
      enum: [1, 2, 3],
      defaultValue: 2,
      max: null,
      computed: '1 + 1',
    });
  });

  it('refuses to turn a relationship into a primitive (409), 404 for an unknown field', () => {
    const p = problemOf(() => updateField(frozen(), TODO, 'urn:svc:edge:todo-user', { to: 'p_TEXT' }));
    expect(p.status).toBe(409);
    expect(p.errors[0].path).toBe('/to');
    const q = problemOf(() => updateField(frozen(), TODO, 'urn:svc:edge:user-name', { name: 'x' }));
    expect(q.status).toBe(404);
    expect(q.errors[0].path).toBe('/fieldId');
  });
});

describe('createModel / deleteModel', () => {
  it('creates a model with a generated unique id, deny-all access and completed fields', () => {
    const def = frozen();
    const next = createModel(def, { name: 'Tag', fields: [{ name: 'label', to: 'p_TEXT' }] });
    const tag = next.models[2];
    expect(tag).toEqual({
      id: 'urn:svc:model:tag',
      name: 'Tag',
      accessControl: { rules: [], defaultAccess: 'deny' },
      fields: [
        { id: 'urn:svc:edge:tag-label', name: 'label', to: 'p_TEXT', relationshipOwner: true, min: 0, max: 1, accessControl: { rules: [] } },
      ],
    });
    expect(def.models).toHaveLength(2);
    valid(next);
    // A second model of the same slug gets a suffix (the name clash itself is left to validation).
    expect(createModel(next, { name: 'tag' }).models[3].id).toBe('urn:svc:model:tag-2');
  });

  it('refuses an existing id (409)', () => {
    const p = problemOf(() => createModel(frozen(), { id: TODO, name: 'Other' }));
    expect(p.status).toBe(409);
    expect(p.errors[0].path).toBe('/id');
  });

  it('refuses the user model and a model named by effects or triggers, listing the pointers', () => {
    const user = problemOf(() => deleteModel(frozen(), USER));
    expect(user.status).toBe(409);
    expect(user.errors.map((e) => e.path)).toEqual(['/userModelId']);
    const todoModel = problemOf(() => deleteModel(frozen(), TODO));
    expect(todoModel.status).toBe(409);
    expect(todoModel.errors.map((e) => e.path)).toEqual([
      '/actions/0/effects/0/params/model',
      '/actions/0/effects/2/params/model',
      '/actions/1/effects/0/params/model',
    ]);
  });

  it('deletes a model and the relationship fields pointing to it', () => {
    let def = createModel(frozen(), { name: 'Tag' });
    def = createField(def, TODO, { name: 'tag', to: 'urn:svc:model:tag', relationshipOwner: false }, { name: 'toDos', max: null });
    const before = structuredClone(def);
    const next = deleteModel(def, 'urn:svc:model:tag');
    expect(next.models.map((m) => m.id)).toEqual([TODO, USER]);
    expect(model(next, TODO).fields.map((f) => f.name)).toEqual(['title', 'description', 'deadline', 'status', 'user']);
    expect(def).toEqual(before);
    expect(problemOf(() => deleteModel(def, 'urn:svc:model:none')).status).toBe(404);
  });
});

describe('createField / deleteField', () => {
  it('creates a primitive field with defaults', () => {
    const next = createField(frozen(), TODO, { name: 'priority', to: 'p_NUMBER', min: 0 });
    expect(model(next, TODO).fields.at(-1)).toEqual({
      id: 'urn:svc:edge:todo-priority',
      name: 'priority',
      to: 'p_NUMBER',
      relationshipOwner: true,
      min: 0,
      max: 1,
      accessControl: { rules: [] },
    });
    valid(next);
  });

  it('creates a relationship with its partner on the target model', () => {
    let def = createModel(frozen(), { name: 'Project' });
    def = createField(def, TODO, { name: 'project', to: 'urn:svc:model:project', relationshipOwner: false }, { name: 'toDos', max: null });
    expect(model(def, TODO).fields.at(-1)).toMatchObject({ id: 'urn:svc:edge:todo-project', relationshipOwner: false, max: 1 });
    expect(model(def, 'urn:svc:model:project').fields).toEqual([
      { id: 'urn:svc:edge:project-todos', name: 'toDos', to: TODO, relationshipOwner: true, min: 0, max: null, accessControl: { rules: [] } },
    ]);
    valid(def);
    // An explicit relationshipOwner wins; both sides false is then refused by validation.
    const bad = createField(createModel(frozen(), { name: 'Project' }), TODO, { name: 'project', to: 'urn:svc:model:project', relationshipOwner: false }, {
      name: 'toDos',
      max: null,
      relationshipOwner: false,
    });
    expect(model(bad, 'urn:svc:model:project').fields[0].relationshipOwner).toBe(false);
    // The whole body, partner inlined, gives the same result; `partner` is not stored on the field.
    const body = { name: 'project', to: 'urn:svc:model:project', relationshipOwner: false, partner: { name: 'toDos', max: null } };
    const viaBody = createField(createModel(frozen(), { name: 'Project' }), TODO, body);
    expect(viaBody).toEqual(def);
    expect('partner' in model(viaBody, TODO).fields.at(-1)!).toBe(false);
    expect(() => valid(bad)).toThrow(Problem);
  });

  it('refuses a duplicate id (409), a partner of a primitive field (400), a partner of a missing model (409)', () => {
    expect(problemOf(() => createField(frozen(), TODO, { id: 'urn:svc:edge:user-name', name: 'x', to: 'p_TEXT' })).status).toBe(409);
    const primitive = problemOf(() => createField(frozen(), TODO, { name: 'x', to: 'p_TEXT' }, { name: 'y' }));
    expect([primitive.status, primitive.errors[0].path]).toEqual([400, '/partner']);
    const missing = problemOf(() => createField(frozen(), TODO, { name: 'x', to: 'urn:svc:model:nope' }, { name: 'y' }));
    expect([missing.status, missing.errors[0].path]).toEqual([409, '/to']);
  });

  it('deletes a relationship field together with its partner', () => {
    const def = frozen();
    const next = deleteField(def, USER, 'urn:svc:edge:user-todos');
    expect(model(next, USER).fields.map((f) => f.name)).toEqual(['name', 'email']);
    expect(model(next, TODO).fields.map((f) => f.name)).toEqual(['title', 'description', 'deadline', 'status']);
    expect(model(def, TODO).fields).toHaveLength(5);
  });

  it('deletes a primitive field only', () => {
    const next = deleteField(frozen(), TODO, 'urn:svc:edge:todo-deadline');
    expect(model(next, TODO).fields.map((f) => f.name)).toEqual(['title', 'description', 'status', 'user']);
    expect(model(next, USER).fields).toHaveLength(3);
    expect(problemOf(() => deleteField(frozen(), TODO, 'urn:svc:edge:nope')).status).toBe(404);
  });
});

describe('actions', () => {
  const action = { id: 'urn:svc:action:noop', startEffectId: 'done', effects: [{ actionEffectId: 'done', effect: 'flow.return', params: { status: 204 } }] };

  it('adds an action; 409 for an existing id', () => {
    const def = frozen();
    const next = addAction(def, action);
    expect(next.actions.map((a) => a.id)).toEqual(['urn:svc:action:complete-todo', 'urn:svc:action:welcome', 'urn:svc:action:noop']);
    expect(def.actions).toHaveLength(2);
    const p = problemOf(() => addAction(def, { ...action, id: 'urn:svc:action:welcome' }));
    expect([p.status, p.errors[0].path]).toEqual([409, '/id']);
  });

  it('replaces an action keeping its id; a different id in the body is 400', () => {
    const { id: _id, ...body } = action;
    const next = updateAction(frozen(), 'urn:svc:action:welcome', body);
    expect(next.actions[1]).toEqual({ ...body, id: 'urn:svc:action:welcome' });
    expect(problemOf(() => updateAction(frozen(), 'urn:svc:action:welcome', action)).status).toBe(400);
    expect(problemOf(() => updateAction(frozen(), 'urn:svc:action:nope', body)).errors[0].path).toBe('/actionId');
  });

  it('refuses to delete an action a trigger starts, naming the trigger', () => {
    const p = problemOf(() => deleteAction(frozen(), 'urn:svc:action:welcome'));
    expect(p.status).toBe(409);
    expect(p.errors).toEqual([{ path: '/triggers/1/actionId', message: "Trigger 'urn:svc:trigger:user-created' starts this action" }]);
    const next = deleteAction(deleteTrigger(frozen(), 'urn:svc:trigger:user-created'), 'urn:svc:action:welcome');
    expect(next.actions.map((a) => a.id)).toEqual(['urn:svc:action:complete-todo']);
  });
});

describe('triggers', () => {
  const trigger: Trigger = {
    trigger: { id: 'urn:svc:trigger:reopen', type: 'http', method: 'POST', path: '/toDos/:id/reopen' },
    actionId: 'urn:svc:action:complete-todo',
    initialState: { todoId: 'request.params.id' },
    validation: [],
  };

  it('creates, replaces and deletes a trigger', () => {
    const def = frozen();
    const created = createTrigger(def, trigger);
    expect(created.triggers.at(-1)).toEqual(trigger);
    valid(created);
    const updated = updateTrigger(created, 'urn:svc:trigger:reopen', { ...trigger, isPublic: false });
    expect(updated.triggers[2].isPublic).toBe(false);
    const deleted = deleteTrigger(updated, 'urn:svc:trigger:complete-todo');
    expect(deleted.triggers.map((t) => t.trigger.id)).toEqual(['urn:svc:trigger:user-created', 'urn:svc:trigger:reopen']);
    expect(def.triggers).toHaveLength(2);
  });

  it('409 for a duplicate id, 400 for an id change, 404 for an unknown trigger', () => {
    expect(problemOf(() => createTrigger(frozen(), { ...trigger, trigger: { ...trigger.trigger, id: 'urn:svc:trigger:complete-todo' } })).status).toBe(409);
    expect(problemOf(() => updateTrigger(frozen(), 'urn:svc:trigger:complete-todo', trigger)).status).toBe(400);
    const p = problemOf(() => deleteTrigger(frozen(), 'urn:svc:trigger:nope'));
    expect([p.status, p.errors[0].path]).toEqual([404, '/triggerId']);
  });
});

describe('replaceSection', () => {
  it('replaces one section and nothing else', () => {
    const def = frozen();
    const next = replaceSection(def, 'personas', [{ name: 'Guest' }]);
    expect(next.personas).toEqual([{ name: 'Guest' }]);
    expect({ ...next, personas: def.personas }).toEqual(def);
    expect(replaceSection(def, 'appDraft', null).appDraft).toBeNull();
    expect(replaceSection(def, 'domainModel', { models: [] }).domainModel).toEqual({ models: [] });
    expect(def.appDraft).not.toBeNull();
  });

  it('404 for a section that cannot be replaced', () => {
    // A caller bypassing the types (e.g. a path parameter) gets a Problem.
    const p = problemOf(() => replaceSection(frozen(), 'models' as 'personas', []));
    expect([p.status, p.errors[0].path]).toEqual([404, '/section']);
  });
});
