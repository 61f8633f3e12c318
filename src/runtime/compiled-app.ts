import type { AccessControl, AppDefinition, Field, Model } from '../definition/schema.ts';
import { defaultExpression, literalDefault } from '../definition/default-value.ts';
import { columnNameForField, resourceName, schemaNameForApp, tableNameForModel } from '../definition/naming.ts';
import { findPartner, isRelationship, isToMany, relationshipStorage } from '../definition/relationships.ts';

/**
 * How one relationship field is read and written:
 * - `ownColumn`: this model's table holds the target's id (a to-one pointer);
 * - `targetColumn`: the target's table holds this record's id (the "has many/one" side);
 * - `joinTable`: a join table holds the pairs.
 */
export type RelationStorage =
  | { kind: 'ownColumn'; column: string }
  | { kind: 'targetColumn'; column: string }
  | { kind: 'joinTable'; table: string; selfColumn: string; otherColumn: string };

export interface CompiledField {
  id: string;
  name: string;
  to: string;
  /** The column in the model's table; null for computed fields and relations stored elsewhere. */
  column: string | null;
  required: boolean;
  /** A primitive with more than one value (an array column), or a to-many relation. */
  many: boolean;
  min: number;
  max: number | null;
  enum?: unknown[];
  /** The literal default (unwrapped from `{"literal": …}`). */
  defaultValue?: unknown;
  /** A `{"expression": …}` default: CEL evaluated on create with `auth` and `now` (runtime/writes/defaults.ts). */
  defaultExpression?: string;
  computed?: string;
  /** Accepted on writes, never read back by anyone (data/write-only.ts). */
  writeOnly?: true;
  accessControl: AccessControl;
  relation?: { targetModelId: string; storage: RelationStorage };
}

export interface CompiledModel {
  id: string;
  name: string;
  resource: string;
  table: string;
  fields: CompiledField[];
  fieldsByName: Map<string, CompiledField>;
  accessControl: AccessControl;
}

/** A definition made ready to serve: names resolved to tables and columns once, at deploy time. */
export interface CompiledApp {
  applicationId: string;
  serverVersion: string;
  schema: string;
  definition: AppDefinition;
  models: CompiledModel[];
  modelsById: Map<string, CompiledModel>;
  modelsByResource: Map<string, CompiledModel>;
  userModel: CompiledModel | null;
}

function relationOf(def: Pick<AppDefinition, 'models'>, model: Model, field: Field): CompiledField['relation'] {
  const storage = relationshipStorage(def, model, field);
  if (storage.kind === 'joinTable') {
    return { targetModelId: field.to, storage: { kind: 'joinTable', table: storage.table, selfColumn: storage.ownerColumn, otherColumn: storage.targetColumn } };
  }
  if (storage.field.id === field.id) return { targetModelId: field.to, storage: { kind: 'ownColumn', column: storage.column } };
  return { targetModelId: field.to, storage: { kind: 'targetColumn', column: storage.column } };
}

function compileField(def: Pick<AppDefinition, 'models'>, model: Model, field: Field): CompiledField {
  const relation = isRelationship(field) ? relationOf(def, model, field) : undefined;
  const stored = field.computed === undefined && (!relation || relation.storage.kind === 'ownColumn');
  return {
    id: field.id,
    name: field.name,
    to: field.to,
    column: stored ? columnNameForField(field.id) : null,
    required: field.min >= 1,
    many: isToMany(field),
    min: field.min,
    max: field.max,
    ...(field.enum ? { enum: field.enum } : {}),
    ...(literalDefault(field.defaultValue) !== undefined ? { defaultValue: literalDefault(field.defaultValue) } : {}),
    ...(defaultExpression(field.defaultValue) !== undefined ? { defaultExpression: defaultExpression(field.defaultValue) } : {}),
    ...(field.computed !== undefined ? { computed: field.computed } : {}),
    ...(field.writeOnly ? { writeOnly: true as const } : {}),
    accessControl: field.accessControl,
    ...(relation ? { relation } : {}),
  };
}

export function compileApp(applicationId: string, serverVersion: string, definition: AppDefinition): CompiledApp {
  const byId = new Map(definition.models.map((model) => [model.id, model]));
  // The relationship helpers look up only a field's target: handing them that pair keeps
  // compiling linear in the number of models (it runs at every deployment and first request).
  const pairFor = (model: Model, field: Field): Pick<AppDefinition, 'models'> => {
    const target = isRelationship(field) ? byId.get(field.to) : undefined;
    return { models: target && target !== model ? [model, target] : [model] };
  };
  const models = definition.models.map((model): CompiledModel => {
    const fields = model.fields.map((field) => compileField(pairFor(model, field), model, field));
    return {
      id: model.id,
      name: model.name,
      resource: resourceName(model.name),
      table: tableNameForModel(model.id),
      fields,
      fieldsByName: new Map(fields.map((f) => [f.name, f])),
      accessControl: model.accessControl,
    };
  });
  const modelsById = new Map(models.map((m) => [m.id, m]));
  return {
    applicationId,
    serverVersion,
    schema: schemaNameForApp(applicationId),
    definition,
    models,
    modelsById,
    modelsByResource: new Map(models.map((m) => [m.resource, m])),
    userModel: modelsById.get(definition.userModelId) ?? null,
  };
}

/** The partner of a relationship field in the compiled app, if it has one. */
export function partnerOf(app: CompiledApp, model: CompiledModel, field: CompiledField): CompiledField | undefined {
  const defModel = app.definition.models.find((m) => m.id === model.id);
  const defField = defModel?.fields.find((f) => f.id === field.id);
  if (!defModel || !defField) return undefined;
  const partner = findPartner(app.definition, defModel, defField);
  return partner ? app.modelsById.get(field.to)?.fields.find((f) => f.id === partner.id) : undefined;
}
