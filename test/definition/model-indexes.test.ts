// A model's `indexes` member: validated (fields of the model, stored and single-valued, no
// duplicates), rated by the version bump rule, planned as (unique) indexes whose names follow the
// field ids (a rename keeps them), and set through the model edit.
import { describe, expect, it } from 'vitest';
import { Problem, type ProblemDetail } from '../../src/errors.ts';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { validateDefinition } from '../../src/definition/validate.ts';
import { computeBump } from '../../src/definition/versioning/index.ts';
import { updateModel } from '../../src/definition/edits/models.ts';
import { applyOperation, isOperationList } from '../../src/assistant/operations.ts';
import { planMigration, planSchema, summarizeMigration } from '../../src/compiler/schema/index.ts';
import { acceptAll, todo } from './fixtures/index.ts';

const TITLE = 'urn:svc:edge:todo-title';
const USER = 'urn:svc:edge:todo-user';
const APP = '0190d7f4-3a6b-7c8d-9e0f-123456789abc';

function withIndexes(indexes: unknown): AppDefinition {
  const def = todo();
  (def.models[0] as { indexes?: unknown }).indexes = indexes;
  return def;
}

function problems(def: AppDefinition): ProblemDetail[] {
  try {
    validateDefinition(def, { expressions: acceptAll });
    return [];
  } catch (error) {
    if (error instanceof Problem && error.status === 409) return error.errors;
    throw error;
  }
}

describe('model indexes', () => {
  it('accepts a unique index over a text field and a to-one relationship', () => {
    expect(problems(withIndexes([{ fields: [TITLE, USER], unique: true }]))).toEqual([]);
  });

  it('refuses unknown fields, to-many relationships, a field twice and the same index twice (409 naming each)', () => {
    const user = todo().models[1];
    const todos = user.fields.find((f) => f.name === 'todos')!.id;
    const onTodo = problems(withIndexes([{ fields: [TITLE, 'urn:svc:edge:nope'] }, { fields: [USER, USER] }, { fields: [USER, TITLE], unique: true }, { fields: [TITLE, USER] }]));
    expect(onTodo.map((p) => p.path)).toEqual(['/models/0/indexes/0/fields/1', '/models/0/indexes/1/fields/1', '/models/0/indexes/3']);
    expect(onTodo[0].message).toContain('urn:svc:edge:nope');
    const def = todo();
    (def.models[1] as { indexes?: unknown }).indexes = [{ fields: [todos] }];
    expect(problems(def)).toEqual([{ path: '/models/1/indexes/0/fields/0', message: expect.stringContaining('User.todos holds several values') }]);
    // Not even a field id: the shape check names it.
    expect(() => validateDefinition(withIndexes([{ fields: ['title'] }]), { expressions: acceptAll })).toThrow(Problem);
  });

  it('rates a new unique index major, a plain one patch, a dropped unique one minor', () => {
    expect(computeBump(todo(), withIndexes([{ fields: [TITLE], unique: true }]))).toBe('major');
    expect(computeBump(todo(), withIndexes([{ fields: [TITLE] }]))).toBe('patch');
    expect(computeBump(withIndexes([{ fields: [TITLE], unique: true }]), todo())).toBe('minor');
    expect(computeBump(withIndexes([{ fields: [TITLE] }]), withIndexes([{ fields: [TITLE], unique: true }]))).toBe('major');
  });

  it('plans a unique index by field ids: a rename keeps it, removing it drops it', () => {
    const next = withIndexes([{ fields: [TITLE, USER], unique: true }]);
    const plan = planMigration(todo(), next, APP);
    expect(summarizeMigration(plan)).toEqual(['create unique index on ToDo (title, user)']);
    expect(plan.statements[0]).toMatch(/^create unique index if not exists "m_todo_key_\w+" on "app_\w+"\."m_todo" \("f_todo_title__\w+", "f_todo_user__\w+"\)$/);
    expect(plan.steps[0].path).toBe('/models/0/indexes/0');
    const renamed = withIndexes([{ fields: [TITLE, USER], unique: true }]);
    renamed.models[0].fields.find((f) => f.id === TITLE)!.name = 'heading';
    expect(planMigration(next, renamed, APP).statements).toEqual([]);
    expect(summarizeMigration(planMigration(next, todo(), APP))).toEqual(['drop index on ToDo (title, user)']);
    expect(planSchema(next, APP).indexes.filter((i) => i.unique)).toHaveLength(1);
  });

  it('is set and removed by the model edit', () => {
    const set = updateModel(todo(), 'urn:svc:model:todo', { indexes: [{ fields: [TITLE], unique: true }] });
    expect(set.models[0].indexes).toEqual([{ fields: [TITLE], unique: true }]);
    const cleared = updateModel(set, 'urn:svc:model:todo', { indexes: [] });
    expect(cleared.models[0]).not.toHaveProperty('indexes');
    expect(updateModel(set, 'urn:svc:model:todo', { name: 'Task' }).models[0].indexes).toEqual([{ fields: [TITLE], unique: true }]);
  });

  it('is an operation the assistant can propose (setIndexes)', () => {
    const operation = { op: 'setIndexes', modelId: 'urn:svc:model:todo', indexes: [{ fields: [TITLE, USER], unique: true }] };
    expect(isOperationList([operation])).toBe(true);
    expect(isOperationList([{ ...operation, indexes: [{ fields: ['title'] }] }])).toBe(false);
    expect(applyOperation(todo(), operation as Parameters<typeof applyOperation>[1]).models[0].indexes).toEqual(operation.indexes);
  });
});
