/** Every expression of a definition, with its JSON pointer, its scope and (where it has one) its model. */
import type { Scope } from '../../expressions/index.ts';
import { fieldDefault } from '../default-value.ts';
import type { AppDefinition, Field, Model } from '../schema.ts';
import { modelOfEffect } from './actions.ts';
import { pointer } from './pointer.ts';

export interface ExpressionSite {
  path: string;
  source: string;
  scope: Scope;
  /** The model whose `record` the expression sees (rules, computed fields, filters). */
  model?: Model;
  /** For trigger expressions: what starts the action (`request` or `event` are available). */
  triggerType?: 'http' | 'event';
  /** For a `defaultValue` expression: the field whose type its result must fit. */
  field?: Field;
  /** For an effect's bindParams expression: the effect and the param it binds (where a secret may be read). */
  effect?: { name: string; param: string };
}

export function collectExpressions(def: AppDefinition): ExpressionSite[] {
  const sites: ExpressionSite[] = [];
  def.models.forEach((model, i) => collectModelExpressions(model, i, sites));
  collectOtherExpressions(def, sites);
  return sites;
}

/** The expressions of one model (`i`: its index): access rules, computed fields, default expressions. */
export function collectModelExpressions(model: Model, i: number, sites: ExpressionSite[]): void {
  model.accessControl.rules.forEach((rule, r) => {
    sites.push({ path: pointer('models', i, 'accessControl', 'rules', r, 'criteria'), source: rule.criteria, scope: 'rule', model });
  });
  model.fields.forEach((field, k) => {
    field.accessControl.rules.forEach((rule, r) => {
      sites.push({
        path: pointer('models', i, 'fields', k, 'accessControl', 'rules', r, 'criteria'),
        source: rule.criteria,
        scope: 'rule',
        model,
      });
    });
    if (field.computed !== undefined) {
      sites.push({ path: pointer('models', i, 'fields', k, 'computed'), source: field.computed, scope: 'computed', model });
    }
    const declared = fieldDefault(field.defaultValue);
    if (declared?.kind === 'expression' && typeof declared.source === 'string') {
      sites.push({ path: pointer('models', i, 'fields', k, 'defaultValue', 'expression'), source: declared.source, scope: 'default', model, field });
    }
  });
}

/** The expressions outside the models: the triggers' and the actions'. */
export function collectOtherExpressions(def: AppDefinition, sites: ExpressionSite[]): void {
  def.triggers.forEach((t, i) => {
    const triggerType = t.trigger.type;
    t.validation.forEach((source, v) => {
      sites.push({ path: pointer('triggers', i, 'validation', v), source, scope: 'validation', triggerType });
    });
    if (t.trigger.type === 'http') {
      t.trigger.matchSelectors?.forEach((source, s) => {
        sites.push({ path: pointer('triggers', i, 'trigger', 'matchSelectors', s), source, scope: 'matchSelector', triggerType });
      });
    }
    for (const [name, source] of Object.entries(t.initialState)) {
      sites.push({ path: pointer('triggers', i, 'initialState', name), source, scope: 'initialState', triggerType });
    }
  });

  def.actions.forEach((action, i) => {
    action.effects.forEach((effect, j) => {
      for (const [name, source] of Object.entries(effect.bindParams ?? {})) {
        sites.push({ path: pointer('actions', i, 'effects', j, 'bindParams', name), source, scope: 'effect', effect: { name: effect.effect, param: name } });
      }
      const filter = effect.params?.filter;
      const model = modelOfEffect(def, effect);
      if ((effect.effect === 'data.find' || effect.effect === 'data.count') && typeof filter === 'string' && model) {
        sites.push({ path: pointer('actions', i, 'effects', j, 'params', 'filter'), source: filter, scope: 'filter', model });
      }
    });
    if (action.bindReturnValue !== undefined) {
      sites.push({ path: pointer('actions', i, 'bindReturnValue'), source: action.bindReturnValue, scope: 'returnValue' });
    }
  });
}
