/**
 * Field edits: update (spec endpoint 2), create (with the partner field of a
 * relationship), delete (with its partner).
 */
import { Type, type Static } from '@sinclair/typebox';
import { Problem } from '../../errors.ts';
import {
  AccessControlSchema,
  EnumValueSchema,
  FieldIdSchema,
  MAX_LIST,
  PrimitiveTypeSchema,
  isPrimitiveType,
  type AppDefinition,
  type Field,
} from '../schema.ts';
import { findPartner } from '../relationships.ts';
import { fieldIdFor, fieldIds } from './ids.ts';
import { fieldIndex, findModel, modelIndex } from './lookup.ts';
import { mapShared, replaceAt } from './shared.ts';

/**
 * Body of `PATCH .../models/{modelId}/fields/{fieldId}`: any subset of the members.
 * `null` removes `computed`, `defaultValue` or `enum`; `max: null` means unbounded.
 * `to` only takes a primitive type (spec); a relationship cannot be retargeted here.
 * Members not listed are ignored (`id` and `accessControl` are not changed here).
 */
export const UpdateFieldBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1 })),
  relationshipOwner: Type.Optional(Type.Boolean()),
  min: Type.Optional(Type.Number({ minimum: 0 })),
  max: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])),
  to: Type.Optional(PrimitiveTypeSchema),
  computed: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  defaultValue: Type.Optional(Type.Unknown()),
  enum: Type.Optional(Type.Union([Type.Array(EnumValueSchema, { maxItems: MAX_LIST }), Type.Null()])),
  writeOnly: Type.Optional(Type.Boolean({ description: 'Accepted on writes, never answered (false removes it).' })),
});
export type UpdateFieldInput = Static<typeof UpdateFieldBody>;

/**
 * A new field. Defaults: `id` generated (`urn:svc:edge:<model>-<field>`),
 * `relationshipOwner` true, `min` 0, `max` 1, `accessControl` `{rules: []}`.
 */
export const NewFieldSchema = Type.Object({
  id: Type.Optional(FieldIdSchema),
  name: Type.String({ minLength: 1 }),
  to: Type.String({ minLength: 1, description: 'A primitive type or a model id.' }),
  relationshipOwner: Type.Optional(Type.Boolean()),
  min: Type.Optional(Type.Number({ minimum: 0 })),
  max: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])),
  accessControl: Type.Optional(AccessControlSchema),
  computed: Type.Optional(Type.String()),
  defaultValue: Type.Optional(Type.Unknown()),
  enum: Type.Optional(Type.Array(EnumValueSchema, { maxItems: MAX_LIST })),
  writeOnly: Type.Optional(Type.Boolean({ description: 'Accepted on writes, never answered: a password or key a client sends.' })),
});
export type NewField = Static<typeof NewFieldSchema>;

/**
 * The partner of a new relationship field, created on the target model and
 * pointing back. Defaults: `relationshipOwner` the opposite of the field's,
 * `min` 0, `max` 1, `accessControl` `{rules: []}`.
 */
export const PartnerFieldSchema = Type.Object({
  id: Type.Optional(FieldIdSchema),
  name: Type.String({ minLength: 1 }),
  min: Type.Optional(Type.Number({ minimum: 0 })),
  max: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])),
  relationshipOwner: Type.Optional(Type.Boolean()),
  accessControl: Type.Optional(AccessControlSchema),
});
export type PartnerField = Static<typeof PartnerFieldSchema>;

/** Body of `POST .../models/{modelId}/fields`: the field's members plus an optional `partner`. */
export const CreateFieldBody = Type.Composite([
  NewFieldSchema,
  Type.Object({ partner: Type.Optional(PartnerFieldSchema) }),
]);
export type CreateFieldInput = Static<typeof CreateFieldBody>;

const REMOVABLE = ['computed', 'defaultValue', 'enum'] as const;

/** Copies only the model and field it changes (shared.ts). */
export function updateField(def: AppDefinition, modelId: string, fieldId: string, patch: UpdateFieldInput): AppDefinition {
  const m = modelIndex(def, modelId);
  const model = def.models[m];
  const k = fieldIndex(model, fieldId);
  const field: Field = { ...model.fields[k] };
  if (patch.to !== undefined && patch.to !== field.to && !isPrimitiveType(field.to)) {
    throw new Problem(409, `Field '${model.name}.${field.name}' is a relationship; delete it and create a new field to change its type.`, [
      { path: '/to', message: 'A relationship field cannot be changed into a primitive field' },
    ]);
  }
  if (patch.name !== undefined) field.name = patch.name;
  if (patch.relationshipOwner !== undefined) field.relationshipOwner = patch.relationshipOwner;
  if (patch.min !== undefined) field.min = patch.min;
  if (patch.max !== undefined) field.max = patch.max;
  if (patch.to !== undefined) field.to = patch.to;
  if (patch.writeOnly === true) field.writeOnly = true;
  else if (patch.writeOnly === false) delete field.writeOnly;
  for (const member of REMOVABLE) {
    if (!(member in patch) || patch[member] === undefined) continue;
    if (patch[member] === null) delete field[member];
    else Object.assign(field, { [member]: structuredClone(patch[member]) });
  }
  return { ...def, models: replaceAt(def.models, m, { ...model, fields: replaceAt(model.fields, k, field) }) };
}

/** A complete field from a new one, its id made unique against `taken` (which receives it). */
export function completeField(modelName: string, input: NewField, taken: Set<string>, path = ''): Field {
  if (input.id !== undefined) {
    if (taken.has(input.id)) {
      throw new Problem(409, `A field with id '${input.id}' already exists.`, [{ path: `${path}/id`, message: 'Duplicate field id' }]);
    }
    taken.add(input.id);
  }
  const { id, relationshipOwner, min, max, accessControl, ...rest } = structuredClone(input);
  return {
    ...rest,
    id: id ?? fieldIdFor(modelName, input.name, taken),
    relationshipOwner: relationshipOwner ?? true,
    min: min ?? 0,
    max: max === undefined ? 1 : max,
    accessControl: accessControl ?? { rules: [] },
  };
}

/**
 * Adds `field` to the model. With `partner` (the argument, or the member of a
 * whole `CreateFieldBody`), the field must be a relationship (`to` a model id)
 * and the partner is added to the target model, pointing back.
 */
export function createField(def: AppDefinition, modelId: string, input: NewField | CreateFieldInput, partnerInput?: PartnerField): AppDefinition {
  // The whole `CreateFieldBody` may be passed: its `partner` is not a member of the field.
  const { partner: inlined, ...field } = input as CreateFieldInput;
  const partner = partnerInput ?? inlined;
  const m = modelIndex(def, modelId);
  const model = def.models[m];
  const taken = fieldIds(def);
  const created = completeField(model.name, field, taken);
  // Copies only the models that gain a field (shared.ts).
  const models = replaceAt(def.models, m, { ...model, fields: [...model.fields, created] });
  if (partner !== undefined) {
    const t = models.findIndex((x) => x.id === field.to);
    if (t < 0) {
      const message = isPrimitiveType(field.to) ? 'Only a relationship field (to a model id) has a partner' : `No model with id '${field.to}'`;
      throw new Problem(isPrimitiveType(field.to) ? 400 : 409, `Cannot create the partner field: ${message}.`, [
        { path: isPrimitiveType(field.to) ? '/partner' : '/to', message },
      ]);
    }
    const target = models[t];
    const back = completeField(
      target.name,
      { ...partner, relationshipOwner: partner.relationshipOwner ?? !created.relationshipOwner, to: model.id },
      taken,
      '/partner',
    );
    models[t] = { ...target, fields: [...target.fields, back] };
  }
  return { ...def, models };
}

/**
 * Removes the field and, for a relationship, its partner (the field of the
 * target model pointing back; `findPartner` throws 409 when there are several).
 */
export function deleteField(def: AppDefinition, modelId: string, fieldId: string): AppDefinition {
  const model = findModel(def, modelId);
  const field = model.fields[fieldIndex(model, fieldId)];
  const partner = findPartner(def, model, field);
  const gone = new Set([field.id, ...(partner ? [partner.id] : [])]);
  // Copies only the models that lose a field (shared.ts).
  const models = mapShared(def.models, (m) => (m.fields.some((f) => gone.has(f.id)) ? { ...m, fields: m.fields.filter((f) => !gone.has(f.id)) } : m));
  return { ...def, models };
}
