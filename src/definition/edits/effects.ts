/**
 * Effect modifications of one action (spec endpoint 4,
 * `POST .../actions/{actionId}/effects`): a list of items applied in order.
 *
 * - `insert`: `effect` goes in at `index` (0..length; length appends).
 * - `update`: `effect` replaces the effect AT `index` (decision: by position,
 *   since every item carries an index; its `actionEffectId` may change).
 * - `delete`: the effect at `index` is removed.
 * - `move`: the effect at `index` moves so that it ends up at `toIndex`
 *   (a position in the resulting list, 0..length-1).
 * For `delete` and `move`, `effect` is optional; when given, its
 * `actionEffectId` must be the one at `index` (a guard against stale indexes).
 *
 * Indexes refer to the list as left by the previous items. The array order is
 * presentational: execution follows `startEffectId` and `next`, which are not
 * rewired here; dangling references are reported by `validateDefinition`.
 *
 * Atomic: the first failing item throws a Problem whose path is `/<i>/...`
 * (a pointer into the request body) and nothing is changed, since the input
 * definition is never mutated.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Problem } from '../../errors.ts';
import { ActionEffectSchema, MAX_LIST, type ActionEffect, type AppDefinition } from '../schema.ts';
import { actionIndex } from './lookup.ts';
import { replaceAt } from './shared.ts';

export const EFFECT_MODIFICATIONS = ['insert', 'update', 'delete', 'move'] as const;
export type EffectModificationKind = (typeof EFFECT_MODIFICATIONS)[number];

export const EffectModificationSchema = Type.Object({
  index: Type.Integer({ minimum: 0 }),
  modification: Type.Union(EFFECT_MODIFICATIONS.map((m) => Type.Literal(m))),
  /** Required for `insert` and `update`; optional guard for `delete` and `move`. */
  effect: Type.Optional(ActionEffectSchema),
  /** Required for `move`: the effect's position after the move. */
  toIndex: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type EffectModification = Static<typeof EffectModificationSchema>;

export const EffectModificationsBody = Type.Array(EffectModificationSchema, { maxItems: MAX_LIST });
export type EffectModificationsInput = Static<typeof EffectModificationsBody>;

export function modifyEffects(def: AppDefinition, actionId: string, modifications: EffectModificationsInput): AppDefinition {
  const index = actionIndex(def, actionId);
  // Copies only the action (shared.ts); `apply` copies its list of effects.
  const action = { ...def.actions[index] };
  modifications.forEach((item, i) => {
    action.effects = apply(action.effects, item, i);
  });
  return { ...def, actions: replaceAt(def.actions, index, action) };
}

function apply(effects: ActionEffect[], item: EffectModification, i: number): ActionEffect[] {
  const fail = (status: number, member: string, message: string): Problem =>
    new Problem(status, `Effect modification ${i} (${item.modification}) cannot be applied: ${message}.`, [
      { path: `/${i}${member}`, message },
    ]);
  const list = [...effects];
  const last = item.modification === 'insert' ? list.length : list.length - 1;
  if (item.index > last) {
    throw fail(409, '/index', `index ${item.index} is out of range 0..${last} (the action has ${list.length} effect(s))`);
  }
  const effect = item.effect === undefined ? undefined : structuredClone(item.effect);
  const current = list[item.index] as ActionEffect | undefined;

  const ensureUnique = (id: string, except?: number): void => {
    if (list.some((e, k) => e.actionEffectId === id && k !== except)) {
      throw fail(409, '/effect/actionEffectId', `the action already has an effect '${id}'`);
    }
  };
  const ensureGuard = (): void => {
    if (effect && current && effect.actionEffectId !== current.actionEffectId) {
      throw fail(409, '/effect/actionEffectId', `the effect at index ${item.index} is '${current.actionEffectId}', not '${effect.actionEffectId}'`);
    }
  };

  switch (item.modification) {
    case 'insert':
      if (!effect) throw fail(400, '/effect', 'an insert needs the effect');
      ensureUnique(effect.actionEffectId);
      list.splice(item.index, 0, effect);
      return list;
    case 'update':
      if (!effect) throw fail(400, '/effect', 'an update needs the effect');
      ensureUnique(effect.actionEffectId, item.index);
      list[item.index] = effect;
      return list;
    case 'delete':
      ensureGuard();
      list.splice(item.index, 1);
      return list;
    case 'move': {
      if (item.toIndex === undefined) throw fail(400, '/toIndex', 'a move needs toIndex');
      if (item.toIndex > list.length - 1) {
        throw fail(409, '/toIndex', `toIndex ${item.toIndex} is out of range 0..${list.length - 1}`);
      }
      ensureGuard();
      const [moved] = list.splice(item.index, 1);
      list.splice(item.toIndex, 0, moved);
      return list;
    }
    default:
      throw fail(400, '/modification', `unknown modification '${String((item as { modification: unknown }).modification)}'`);
  }
}
