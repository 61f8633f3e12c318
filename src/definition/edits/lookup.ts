/**
 * Finding the target of an edit. A missing target is a 404 whose error path
 * names the request parameter (`/modelId`, `/fieldId`, ...), as the other
 * services do.
 */
import { Problem } from '../../errors.ts';
import type { Action, AppDefinition, Field, Model, Trigger } from '../schema.ts';

export function modelIndex(def: AppDefinition, modelId: string): number {
  const index = def.models.findIndex((m) => m.id === modelId);
  if (index < 0) throw missing('model', modelId, '/modelId');
  return index;
}

export function findModel(def: AppDefinition, modelId: string): Model {
  return def.models[modelIndex(def, modelId)];
}

export function fieldIndex(model: Model, fieldId: string): number {
  const index = model.fields.findIndex((f) => f.id === fieldId);
  if (index < 0) throw missing(`field in model '${model.name}'`, fieldId, '/fieldId');
  return index;
}

export function findField(model: Model, fieldId: string): Field {
  return model.fields[fieldIndex(model, fieldId)];
}

export function actionIndex(def: AppDefinition, actionId: string): number {
  const index = def.actions.findIndex((a) => a.id === actionId);
  if (index < 0) throw missing('action', actionId, '/actionId');
  return index;
}

export function findAction(def: AppDefinition, actionId: string): Action {
  return def.actions[actionIndex(def, actionId)];
}

export function triggerIndex(def: AppDefinition, triggerId: string): number {
  const index = def.triggers.findIndex((t) => t.trigger.id === triggerId);
  if (index < 0) throw missing('trigger', triggerId, '/triggerId');
  return index;
}

export function findTrigger(def: AppDefinition, triggerId: string): Trigger {
  return def.triggers[triggerIndex(def, triggerId)];
}

function missing(what: string, id: string, path: string): Problem {
  const detail = `There is no ${what} with id '${id}'.`;
  return new Problem(404, detail, [{ path, message: detail }]);
}

/**
 * Pointers to everything that names a model: effects whose `params.model` is
 * its name or id (the effect catalogue takes either), and event triggers listening to `<Name>.<event>`
 * (the data-change events of DESIGN §7).
 */
export function modelReferences(def: AppDefinition, model: Pick<Model, 'id' | 'name'>): string[] {
  const pointers: string[] = [];
  def.actions.forEach((action, a) =>
    action.effects.forEach((effect, e) => {
      const ref = effect.params?.model;
      if (ref === model.name || ref === model.id) pointers.push(`/actions/${a}/effects/${e}/params/model`);
    }),
  );
  def.triggers.forEach((t, i) => {
    if (t.trigger.type === 'event' && isModelEvent(t.trigger.eventName, model.name)) {
      pointers.push(`/triggers/${i}/trigger/eventName`);
    }
  });
  return pointers;
}

export const MODEL_EVENTS = ['created', 'updated', 'deleted'] as const;

export function isModelEvent(eventName: string, modelName: string): boolean {
  return MODEL_EVENTS.some((event) => eventName === `${modelName}.${event}`);
}
