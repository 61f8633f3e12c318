import { describe, expect, it } from 'vitest';
import { computeBump, diffDefinitions, nextVersion, type Bump } from '../../src/definition/versioning/index.ts';
import type { AppDefinition, Field } from '../../src/definition/schema.ts';
import { todo } from './fixtures/index.ts';

const field = (def: AppDefinition, model: number, name: string): Field => def.models[model].fields.find((f) => f.name === name)!;
const priority = (extra: Partial<Field> = {}): Field => ({
  id: 'urn:svc:edge:todo-priority',
  name: 'priority',
  relationshipOwner: true,
  min: 0,
  max: 1,
  to: 'p_NUMBER',
  accessControl: { rules: [] },
  ...extra,
});
const tags = (max: number | null): Field => ({ ...priority(), id: 'urn:svc:edge:todo-tags', name: 'tags', to: 'p_TEXT', max });
const withTags = (max: number | null): AppDefinition => {
  const def = todo();
  def.models[0].fields.push(tags(max));
  return def;
};

/** [case, change applied to a copy of the example (or [from, to]), expected bump]. */
const TABLE: [string, (def: AppDefinition) => void, Bump][] = [
  ['nothing changed', () => {}, 'patch'],
  ['model removed', (d) => void d.models.splice(0, 1), 'major'],
  ['model renamed', (d) => void (d.models[0].name = 'Task'), 'major'],
  ['model added', (d) => void d.models.push({ id: 'urn:svc:model:tag', name: 'Tag', fields: [], accessControl: { rules: [] } }), 'minor'],
  ['model access rule changed', (d) => void (d.models[0].accessControl.rules = []), 'patch'],
  ['field access rule changed', (d) => void field(d, 0, 'title').accessControl.rules.push({ access: 'deny', criteria: 'false' }), 'patch'],
  ['field removed', (d) => void d.models[0].fields.splice(1, 1), 'major'],
  ['field renamed', (d) => void (field(d, 0, 'title').name = 'heading'), 'major'],
  ['field type changed', (d) => void (field(d, 0, 'description').to = 'p_NUMBER'), 'major'],
  ['optional field added', (d) => void d.models[0].fields.push(priority()), 'minor'],
  ['required field added', (d) => void d.models[0].fields.push(priority({ min: 1 })), 'major'],
  ['required field with a default added', (d) => void d.models[0].fields.push(priority({ min: 1, defaultValue: 3 })), 'minor'],
  ['min raised (becomes required)', (d) => void (field(d, 0, 'description').min = 1), 'major'],
  ['min lowered', (d) => void (field(d, 0, 'title').min = 0), 'minor'],
  ['max 1 → null (value becomes a list)', (d) => void (field(d, 0, 'title').max = null), 'major'],
  ['enum set on a free field', (d) => void (field(d, 0, 'title').enum = ['a']), 'major'],
  ['enum loses a value', (d) => void (field(d, 0, 'status').enum = ['open']), 'major'],
  ['enum gains a value', (d) => void (field(d, 0, 'status').enum = ['open', 'done', 'archived']), 'minor'],
  ['enum removed', (d) => void delete field(d, 0, 'status').enum, 'minor'],
  ['enum reordered', (d) => void (field(d, 0, 'status').enum = ['done', 'open']), 'patch'],
  ['field becomes computed', (d) => void (field(d, 0, 'description').computed = "'x'"), 'major'],
  ['default removed on a required field', (d) => void delete field(d, 0, 'status').defaultValue, 'major'],
  ['default added on a required field', (d) => void (field(d, 0, 'title').defaultValue = 'Untitled'), 'minor'],
  ['default changed', (d) => void (field(d, 0, 'status').defaultValue = 'done'), 'patch'],
  ['default added on an optional field', (d) => void (field(d, 0, 'description').defaultValue = ''), 'patch'],
  ['relationshipOwner changed', (d) => void (field(d, 1, 'todos').relationshipOwner = false), 'patch'],
  ['HTTP trigger removed', (d) => void d.triggers.splice(0, 1), 'major'],
  ['HTTP trigger path changed', (d) => void Object.assign(d.triggers[0].trigger, { path: '/toDos/:id/finish' }), 'major'],
  ['HTTP trigger method changed', (d) => void Object.assign(d.triggers[0].trigger, { method: 'PUT' }), 'major'],
  ['event trigger gets isPublic false (no route)', (d) => void (d.triggers[1].isPublic = false), 'patch'],
  ['HTTP trigger becomes public', (d) => void (d.triggers[0].isPublic = true), 'minor'],
  ['HTTP trigger added', (d) => void d.triggers.push({ ...structuredClone(d.triggers[0]), trigger: { id: 'urn:svc:trigger:reopen', type: 'http', method: 'POST', path: '/toDos/:id/reopen' } }), 'minor'],
  ['event trigger removed', (d) => void d.triggers.splice(1, 1), 'patch'],
  ['event trigger added', (d) => void d.triggers.push({ ...structuredClone(d.triggers[1]), trigger: { id: 'urn:svc:trigger:x', type: 'event', eventName: 'ToDo.created', payload: {} } }), 'patch'],
  ['trigger validation changed', (d) => void d.triggers[0].validation.push('true'), 'patch'],
  ['action used by a route removed (with its trigger)', (d) => void (d.actions.splice(0, 1), d.triggers.splice(0, 1)), 'major'],
  ['action not used by a route removed', (d) => void (d.actions.splice(1, 1), d.triggers.splice(1, 1)), 'patch'],
  ['effect params changed', (d) => void (d.actions[0].effects[2].params = { model: 'ToDo', values: { status: 'open' } }), 'patch'],
  ['action added', (d) => void d.actions.push({ id: 'urn:svc:action:x', startEffectId: 'a', effects: [{ actionEffectId: 'a', effect: 'flow.return' }] }), 'patch'],
  ['user model changed', (d) => void (d.userModelId = 'urn:svc:model:todo'), 'major'],
  ['requirements, personas, description changed', (d) => void (d.requirements.pop(), (d.personas = []), (d.appDescription = 'x')), 'patch'],
  ['the version member alone changed', (d) => void (d.version = '9.9.9'), 'patch'],
];

describe('computeBump', () => {
  it.each(TABLE)('%s → %s', (_name, change, bump) => {
    const previous = todo();
    const next = todo();
    change(next);
    expect(computeBump(previous, next)).toBe(bump);
  });

  /** The example with ToDo.description computed (optional, min 0) or ToDo.title computed (min 1, no default). */
  const computed = (name: 'description' | 'title', expression: string | undefined): AppDefinition => {
    const def = todo();
    if (expression !== undefined) field(def, 0, name).computed = expression;
    return def;
  };
  it.each([
    ['field no longer computed', 'description', "'x'", undefined, 'minor'],
    ['field no longer computed, now required on create', 'title', "'x'", undefined, 'major'],
    ['computed expression changed', 'description', "'x'", "'y'", 'patch'],
    ['computed expression changed on a required field', 'title', "'x'", "record.status + '!'", 'patch'],
  ] as const)('%s (ToDo.%s: %s → %s) is %s', (_name, name, from, to, bump) => {
    expect(computeBump(computed(name, from), computed(name, to))).toBe(bump);
  });

  it('the highest bump wins', () => {
    const next = todo();
    next.models[0].fields.push(priority());
    field(next, 0, 'title').name = 'heading';
    expect(computeBump(todo(), next)).toBe('major');
  });

  it.each([
    [3, 5, 'minor'],
    [5, 3, 'major'],
    [3, null, 'minor'],
    [null, 3, 'major'],
  ] as const)('list field max %s → %s is %s', (from, to, bump) => {
    expect(computeBump(withTags(from), withTags(to))).toBe(bump);
  });

  it('HTTP trigger that becomes non-public is major', () => {
    const next = todo();
    delete next.triggers[0].isPublic;
    const before = todo();
    delete before.triggers[0].isPublic;
    next.triggers[0].isPublic = false;
    expect(computeBump(before, next)).toBe('major');
  });
});

describe('nextVersion', () => {
  it.each([
    ['1.0.1', 'patch', '1.0.2'],
    ['1.0.1', 'minor', '1.1.0'],
    ['1.0.1', 'major', '2.0.0'],
    ['v2.3', 'patch', '2.3.1'],
    ['1.2.3-beta.1', 'minor', '1.3.0'],
    [null, 'patch', '0.0.1'],
    ['garbage', 'major', '1.0.0'],
  ] as const)('%s + %s → %s', (current, bump, expected) => {
    expect(nextVersion(current, bump)).toBe(expected);
  });
});

describe('diffDefinitions', () => {
  it('is empty for equal definitions (the version member ignored)', () => {
    const next = todo();
    next.version = '2.0.0';
    expect(diffDefinitions(todo(), next)).toEqual([]);
  });

  it('lists model, field, action, trigger and section changes readably', () => {
    const next = todo();
    next.models[0].fields.push(priority());
    field(next, 0, 'title').name = 'heading';
    field(next, 0, 'status').enum = ['open', 'done', 'archived'];
    next.models[1].name = 'Member';
    next.models[1].fields.splice(1, 1);
    next.actions[0].effects.splice(3, 1);
    next.triggers.splice(1, 1);
    Object.assign(next.triggers[0].trigger, { path: '/toDos/:id/finish' });
    next.appDescription = 'Changed.';
    expect(diffDefinitions(todo(), next)).toEqual([
      { kind: 'changed', path: '/models/0/fields/0/name', summary: 'field ToDo.title renamed to heading' },
      { kind: 'changed', path: '/models/0/fields/3/enum', summary: 'field ToDo.status enum values added: "archived"' },
      { kind: 'added', path: '/models/0/fields/5', summary: 'field ToDo.priority added (p_NUMBER)' },
      { kind: 'changed', path: '/models/1/name', summary: 'model User renamed to Member' },
      { kind: 'removed', path: '/models/1/fields/1', summary: 'field User.email removed' },
      { kind: 'removed', path: '/actions/0/effects/3', summary: "action complete-todo: effect 'forbidden' removed" },
      { kind: 'removed', path: '/triggers/1', summary: 'trigger event User.created removed' },
      {
        kind: 'changed',
        path: '/triggers/0/trigger',
        summary: 'trigger complete-todo changed from POST /toDos/:id/complete to POST /toDos/:id/finish',
      },
      { kind: 'changed', path: '/appDescription', summary: 'appDescription changed' },
    ]);
  });

  it('names relationship types by model and marks lists and required fields', () => {
    const next = todo();
    next.models.push({ id: 'urn:svc:model:tag', name: 'Tag', fields: [], accessControl: { rules: [] } });
    next.models[0].fields.push({ ...priority({ min: 1 }), id: 'urn:svc:edge:todo-tags', name: 'tags', to: 'urn:svc:model:tag', max: null });
    field(next, 0, 'deadline').to = 'p_DATE';
    expect(diffDefinitions(todo(), next).map((c) => c.summary)).toEqual([
      'field ToDo.deadline type changed from p_DATE_TIME to p_DATE',
      'field ToDo.tags added (Tag[], required)',
      'model Tag added (0 field(s))',
    ]);
  });
});
