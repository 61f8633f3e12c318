/**
 * Model edits: update (spec endpoint 1, operation `updateModel`), create, delete.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Problem } from '../../errors.ts';
import { AccessControlSchema, MAX_FIELDS, MAX_LIST, ModelIdSchema, ModelIndexSchema, RequirementIdSchema, type AccessControl, type AppDefinition, type Model } from '../schema.ts';
import { NewFieldSchema, completeField } from './fields.ts';
import { fieldIds, modelIdFor, modelIds } from './ids.ts';
import { MODEL_EVENTS, modelIndex, modelReferences } from './lookup.ts';
import { mapShared, replaceAt } from './shared.ts';

/** Body of `PATCH .../models/{modelId}`. Other members (`id`, `fields`, ...) are read-only and ignored. */
export const UpdateModelBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1 })),
  accessControl: Type.Optional(AccessControlSchema),
  /** A member beyond those the interface shows: replaces the model's indexes (`[]` removes them). */
  indexes: Type.Optional(Type.Array(ModelIndexSchema, { maxItems: 64 })),
});
export type UpdateModelInput = Static<typeof UpdateModelBody>;

/**
 * Body of `POST .../models`. `id` is generated when absent (`urn:svc:model:<slug>`,
 * made unique); `accessControl` defaults to deny-all (see `defaultModelAccess`).
 */
export const CreateModelBody = Type.Object({
  id: Type.Optional(ModelIdSchema),
  name: Type.String({ minLength: 1 }),
  fields: Type.Optional(Type.Array(NewFieldSchema, { maxItems: MAX_FIELDS })),
  accessControl: Type.Optional(AccessControlSchema),
  referenceRequirements: Type.Optional(Type.Array(RequirementIdSchema, { maxItems: MAX_LIST })),
  indexes: Type.Optional(Type.Array(ModelIndexSchema, { maxItems: 64 })),
});
export type CreateModelInput = Static<typeof CreateModelBody>;

/**
 * Access of a model created without rules: nobody but the application's
 * administrator (a management credential, which bypasses rules) may read or
 * write it until the builder adds rules. Safe by default: a new model never
 * leaks data.
 */
export function defaultModelAccess(): AccessControl {
  return { rules: [], defaultAccess: 'deny' };
}

/**
 * Renames and/or replaces the access control of a model. A rename carries over
 * to what names the model by its name: effects' `params.model` and the
 * data-change event triggers (`ToDo.created` → `Task.created`). Expressions do
 * not name models, field names are untouched. Other inconsistencies (a duplicate
 * name...) are left to `validateDefinition` (409).
 */
export function updateModel(def: AppDefinition, modelId: string, input: UpdateModelInput): AppDefinition {
  const m = modelIndex(def, modelId);
  const model: Model = { ...def.models[m] };
  // Copies only the model and what names it (shared.ts).
  const next = input.name !== undefined && input.name !== model.name ? renameReferences(def, model.name, input.name) : def;
  if (input.name !== undefined) model.name = input.name;
  if (input.accessControl !== undefined) model.accessControl = structuredClone(input.accessControl);
  if (input.indexes !== undefined) {
    if (input.indexes.length > 0) model.indexes = structuredClone(input.indexes);
    else delete model.indexes;
  }
  return { ...next, models: replaceAt(next.models, m, model) };
}

function renameReferences(def: AppDefinition, from: string, to: string): AppDefinition {
  const actions = mapShared(def.actions, (action) => {
    const effects = mapShared(action.effects, (effect) => (effect.params?.model === from ? { ...effect, params: { ...effect.params, model: to } } : effect));
    return effects === action.effects ? action : { ...action, effects };
  });
  const triggers = mapShared(def.triggers, (t) => {
    const trigger = t.trigger;
    if (trigger.type !== 'event') return t;
    const event = MODEL_EVENTS.find((e) => trigger.eventName === `${from}.${e}`);
    return event ? { ...t, trigger: { ...trigger, eventName: `${to}.${event}` } } : t;
  });
  return { ...def, actions, triggers };
}

export function createModel(def: AppDefinition, input: CreateModelInput): AppDefinition {
  const ids = modelIds(def);
  if (input.id !== undefined && ids.has(input.id)) {
    throw new Problem(409, `A model with id '${input.id}' already exists.`, [{ path: '/id', message: 'Duplicate model id' }]);
  }
  const { id, fields, accessControl, ...rest } = structuredClone(input);
  const taken = fieldIds(def);
  const model: Model = {
    ...rest,
    id: id ?? modelIdFor(input.name, ids),
    fields: (fields ?? []).map((field, i) => completeField(input.name, field, taken, `/fields/${i}`)),
    accessControl: accessControl ?? defaultModelAccess(),
  };
  return { ...def, models: [...def.models, model] };
}

/**
 * Removes a model and the relationship fields of other models pointing to it.
 * Refused (409) for the user model, and while effects or event triggers name it
 * (the error lists their pointers into the definition).
 */
export function deleteModel(def: AppDefinition, modelId: string): AppDefinition {
  const model = def.models[modelIndex(def, modelId)];
  if (def.userModelId === modelId) {
    throw new Problem(409, `Model '${model.name}' is the user model and cannot be deleted.`, [
      { path: '/userModelId', message: `Names the model '${model.name}'` },
    ]);
  }
  const pointers = modelReferences(def, model);
  if (pointers.length > 0) {
    throw new Problem(
      409,
      `Model '${model.name}' is still used by ${pointers.length} effect(s) or trigger(s); change them first.`,
      pointers.map((path) => ({ path, message: `Names the model '${model.name}'` })),
    );
  }
  // Copies only the models that lose a field pointing to it (shared.ts).
  const models = mapShared(
    def.models.filter((m) => m.id !== modelId),
    (m) => (m.fields.some((f) => f.to === modelId) ? { ...m, fields: m.fields.filter((f) => f.to !== modelId) } : m),
  );
  return { ...def, models };
}
