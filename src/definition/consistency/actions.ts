/**
 * Consistency of actions and their effects: ids, references between effects,
 * effect names and params, models and fields named by data effects.
 * A `next` chain that loops is allowed (runs are bounded at run time), and so
 * are effects unreachable from `startEffectId`.
 */
import type { ProblemDetail } from '../../errors.ts';
import { checkEffectParams, effectReferenceEntries } from '../effect-catalogue.ts';
import type { Action, ActionEffect, AppDefinition, Model } from '../schema.ts';
import { duplicates, pointer } from './pointer.ts';

/** The model a data effect's literal `model` param names (by name or by id). */
export function modelOfEffect(def: AppDefinition, effect: ActionEffect): Model | undefined {
  const ref = effect.params?.model;
  if (typeof ref !== 'string') return undefined;
  return def.models.find((m) => m.id === ref) ?? def.models.find((m) => m.name === ref);
}

export function checkActions(def: AppDefinition): ProblemDetail[] {
  const problems: ProblemDetail[] = [];
  for (const { index, first } of duplicates(def.actions, (a) => a.id)) {
    problems.push({
      path: pointer('actions', index, 'id'),
      message: `Duplicate action id '${def.actions[index].id}' (also ${pointer('actions', first)}).`,
    });
  }
  def.actions.forEach((action, i) => problems.push(...checkAction(def, action, i)));
  return problems;
}

function checkAction(def: AppDefinition, action: Action, i: number): ProblemDetail[] {
  const problems: ProblemDetail[] = [];
  const effectIds = new Set(action.effects.map((e) => e.actionEffectId));
  const nowhere = (id: string) => `No effect of this action has the actionEffectId '${id}'.`;

  for (const { index, first } of duplicates(action.effects, (e) => e.actionEffectId)) {
    problems.push({
      path: pointer('actions', i, 'effects', index, 'actionEffectId'),
      message: `Duplicate actionEffectId '${action.effects[index].actionEffectId}' (also ${pointer('actions', i, 'effects', first)}).`,
    });
  }
  if (!effectIds.has(action.startEffectId)) {
    problems.push({ path: pointer('actions', i, 'startEffectId'), message: nowhere(action.startEffectId) });
  }
  if (action.onError && !effectIds.has(action.onError.nextId)) {
    problems.push({ path: pointer('actions', i, 'onError', 'nextId'), message: nowhere(action.onError.nextId) });
  }

  action.effects.forEach((effect, j) => {
    const at = pointer('actions', i, 'effects', j);
    for (const ref of effectReferenceEntries(effect)) {
      if (!effectIds.has(ref.id)) problems.push({ path: at + ref.path, message: nowhere(ref.id) });
    }
    for (const p of checkEffectParams(effect)) problems.push({ path: at + p.path, message: p.message });
    problems.push(...checkDataEffect(def, effect, at));
  });
  return problems;
}

/** A data effect's literal `model` must name a model, and literal `values` only its fields. */
function checkDataEffect(def: AppDefinition, effect: ActionEffect, at: string): ProblemDetail[] {
  if (!effect.effect.startsWith('data.')) return [];
  const ref = effect.params?.model;
  if (typeof ref !== 'string' || effect.bindParams?.model !== undefined) return [];
  const model = modelOfEffect(def, effect);
  if (!model) return [{ path: `${at}/params/model`, message: `No model has the name or id '${ref}'.` }];
  const values = effect.params?.values;
  if (effect.bindParams?.values !== undefined || typeof values !== 'object' || values === null || Array.isArray(values)) {
    return [];
  }
  const names = new Set(model.fields.map((f) => f.name));
  return Object.keys(values)
    .filter((key) => !names.has(key))
    .map((key) => ({
      path: `${at}/params/values${pointer(key)}`,
      message: `The model ${model.name} has no field '${key}'.`,
    }));
}
