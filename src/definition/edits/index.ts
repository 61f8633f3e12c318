/**
 * Pure edits of a definition: each returns a new definition and never mutates
 * its input, sharing with it what it does not change (shared.ts); a missing
 * target is a 404, an impossible edit a 400/409. The caller checks the result
 * with `validateDefinition`.
 */
export { updateModel, createModel, deleteModel, defaultModelAccess, UpdateModelBody, CreateModelBody } from './models.ts';
export type { UpdateModelInput, CreateModelInput } from './models.ts';
export {
  updateField,
  createField,
  deleteField,
  UpdateFieldBody,
  CreateFieldBody,
  NewFieldSchema,
  PartnerFieldSchema,
} from './fields.ts';
export type { UpdateFieldInput, CreateFieldInput, NewField, PartnerField } from './fields.ts';
export { addAction, updateAction, deleteAction, AddActionBody, UpdateActionBody } from './actions.ts';
export type { AddActionInput, UpdateActionInput } from './actions.ts';
export { modifyEffects, EffectModificationsBody, EffectModificationSchema, EFFECT_MODIFICATIONS } from './effects.ts';
export type { EffectModification, EffectModificationsInput, EffectModificationKind } from './effects.ts';
export { createTrigger, updateTrigger, deleteTrigger, CreateTriggerBody, UpdateTriggerBody } from './triggers.ts';
export type { TriggerInput } from './triggers.ts';
export { replaceSection, SectionBodies, SECTION_NAMES, isSectionName } from './sections.ts';
export type { SectionName, SectionValue } from './sections.ts';
export { slugOf, uniqueId, modelIdFor, fieldIdFor } from './ids.ts';
