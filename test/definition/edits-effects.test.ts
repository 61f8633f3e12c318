import { describe, expect, it } from 'vitest';
import { Problem } from '../../src/errors.ts';
import { modifyEffects, type EffectModificationsInput } from '../../src/definition/edits/index.ts';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { todo } from './fixtures/index.ts';

const ACTION = 'urn:svc:action:complete-todo';
/** complete-todo's effects in order: load, check, save, forbidden. */
const ids = (def: AppDefinition) => def.actions[0].effects.map((e) => e.actionEffectId);
const log = { actionEffectId: 'log', effect: 'flow.set', params: { name: 'logged', value: true } };

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

function problemOf(fn: () => unknown): Problem {
  try {
    fn();
  } catch (error) {
    if (error instanceof Problem) return error;
    throw error;
  }
  throw new Error('expected a Problem');
}

describe('modifyEffects', () => {
  it('inserts at an index, including at the end', () => {
    const def = frozen();
    expect(ids(modifyEffects(def, ACTION, [{ index: 1, modification: 'insert', effect: log }]))).toEqual(['load', 'log', 'check', 'save', 'forbidden']);
    expect(ids(modifyEffects(def, ACTION, [{ index: 4, modification: 'insert', effect: log }]))).toEqual(['load', 'check', 'save', 'forbidden', 'log']);
    expect(ids(def)).toEqual(['load', 'check', 'save', 'forbidden']);
  });

  it('updates the effect at the index (replacing it whole)', () => {
    const def = frozen();
    const save = { actionEffectId: 'save', effect: 'data.update', params: { model: 'ToDo', values: { status: 'open' } }, bindParams: { id: 'state.todoId' } };
    const next = modifyEffects(def, ACTION, [{ index: 2, modification: 'update', effect: save }]);
    expect(next.actions[0].effects[2]).toEqual(save);
    expect(def.actions[0].effects[2].params).toEqual({ model: 'ToDo', values: { status: 'done' } });
  });

  it('deletes at an index, with an optional guard on the effect id', () => {
    const def = frozen();
    expect(ids(modifyEffects(def, ACTION, [{ index: 3, modification: 'delete' }]))).toEqual(['load', 'check', 'save']);
    const stale = problemOf(() => modifyEffects(def, ACTION, [{ index: 3, modification: 'delete', effect: log }]));
    expect([stale.status, stale.errors[0].path]).toEqual([409, '/0/effect/actionEffectId']);
  });

  it('moves the effect at index to toIndex (its position afterwards)', () => {
    const def = frozen();
    expect(ids(modifyEffects(def, ACTION, [{ index: 3, modification: 'move', toIndex: 0 }]))).toEqual(['forbidden', 'load', 'check', 'save']);
    expect(ids(modifyEffects(def, ACTION, [{ index: 0, modification: 'move', toIndex: 3 }]))).toEqual(['check', 'save', 'forbidden', 'load']);
  });

  it('applies items in order, each seeing the result of the previous ones', () => {
    const items: EffectModificationsInput = [
      { index: 0, modification: 'insert', effect: log },
      { index: 0, modification: 'move', toIndex: 4 },
      { index: 3, modification: 'delete', effect: { actionEffectId: 'forbidden', effect: 'flow.fail' } },
    ];
    expect(ids(modifyEffects(frozen(), ACTION, items))).toEqual(['load', 'check', 'save', 'log']);
  });

  it('is atomic: a failing item names itself and the input is untouched', () => {
    const def = frozen();
    const items: EffectModificationsInput = [
      { index: 0, modification: 'delete' },
      { index: 0, modification: 'insert', effect: log },
      { index: 9, modification: 'delete' },
    ];
    const p = problemOf(() => modifyEffects(def, ACTION, items));
    expect(p.status).toBe(409);
    expect(p.errors[0].path).toBe('/2/index');
    expect(p.message).toContain('modification 2 (delete)');
    expect(def).toEqual(todo());
  });

  it('refuses a duplicate effect id, a missing effect, a missing or bad toIndex', () => {
    const def = frozen();
    const dup = problemOf(() => modifyEffects(def, ACTION, [{ index: 0, modification: 'insert', effect: { actionEffectId: 'save', effect: 'flow.set' } }]));
    expect([dup.status, dup.errors[0].path]).toEqual([409, '/0/effect/actionEffectId']);
    const renameOntoOther = problemOf(() =>
      modifyEffects(def, ACTION, [{ index: 0, modification: 'update', effect: { actionEffectId: 'check', effect: 'flow.set' } }]),
    );
    expect(renameOntoOther.status).toBe(409);
    const noEffect = problemOf(() => modifyEffects(def, ACTION, [{ index: 0, modification: 'update' }]));
    expect([noEffect.status, noEffect.errors[0].path]).toEqual([400, '/0/effect']);
    const noTarget = problemOf(() => modifyEffects(def, ACTION, [{ index: 0, modification: 'move' }]));
    expect([noTarget.status, noTarget.errors[0].path]).toEqual([400, '/0/toIndex']);
    const far = problemOf(() => modifyEffects(def, ACTION, [{ index: 0, modification: 'move', toIndex: 4 }]));
    expect([far.status, far.errors[0].path]).toEqual([409, '/0/toIndex']);
    const insertFar = problemOf(() => modifyEffects(def, ACTION, [{ index: 5, modification: 'insert', effect: log }]));
    expect(insertFar.errors[0].path).toBe('/0/index');
  });

  it('404 for an unknown action; an empty list changes nothing', () => {
    const p = problemOf(() => modifyEffects(frozen(), 'urn:svc:action:nope', []));
    expect([p.status, p.errors[0].path]).toEqual([404, '/actionId']);
    const def = frozen();
    const same = modifyEffects(def, ACTION, []);
    expect(same).toEqual(def);
    expect(same).not.toBe(def);
  });
});
