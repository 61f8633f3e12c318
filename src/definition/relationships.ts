/**
 * Relationships: a field whose `to` is a model id. Its partner is the field of
 * the target model that points back (at most one), or, where several point back,
 * the one its `partner` member names (or that names it). Storage (DESIGN §3):
 * - one side to-one, with `relationshipOwner: false` (the belongs-to pointer):
 *   a foreign-key column on that side's table;
 * - both sides to-many (`max` null or > 1): a join table;
 * - no partner: a to-one pointer is a foreign key on its own table; a to-many
 *   pointer gets a join table of its own.
 * The helpers assume a definition that passed the consistency checks;
 * `relationshipStorage` throws a 409 Problem when the pair is contradictory.
 */
import { Problem } from '../errors.ts';
import { columnNameForField, joinTableName } from './naming.ts';
import { MODEL_ID_PREFIX, type AppDefinition, type Field, type Model } from './schema.ts';

/** Only the models are needed; `find`, when given, is an index by id of them. */
type WithModels = Pick<AppDefinition, 'models'> & { find?: (modelId: string) => Model | undefined };

export function isRelationship(field: Pick<Field, 'to'>): boolean {
  return field.to.startsWith(MODEL_ID_PREFIX);
}

/** `max` null (unbounded) or greater than 1. */
export function isToMany(field: Pick<Field, 'max'>): boolean {
  return field.max === null || field.max > 1;
}

export function findModel(def: WithModels, modelId: string): Model | undefined {
  return def.find ? def.find(modelId) : def.models.find((m) => m.id === modelId);
}

/** The model that holds `field` (by field id). */
export function modelOfField(def: WithModels, fieldId: string): Model | undefined {
  return def.models.find((m) => m.fields.some((f) => f.id === fieldId));
}

/**
 * The fields of the target model that may be the partner of `field`: the one its `partner` names;
 * else one that names it as its own partner; else every field pointing back at `model` (the field
 * itself excluded) that names no partner of its own.
 */
export function partnerCandidates(def: WithModels, model: Model, field: Field): Field[] {
  if (!isRelationship(field)) return [];
  const target = findModel(def, field.to);
  if (!target) return [];
  const back = target.fields.filter((f) => f.id !== field.id && f.to === model.id);
  if (field.partner !== undefined) return back.filter((f) => f.id === field.partner);
  const naming = back.filter((f) => f.partner === field.id);
  return naming.length > 0 ? naming : back.filter((f) => f.partner === undefined);
}

/** The partner of a relationship field, or undefined (no partner, or not a relationship). */
export function findPartner(def: WithModels, model: Model, field: Field): Field | undefined {
  const candidates = partnerCandidates(def, model, field);
  if (candidates.length > 1) {
    throw new Problem(409, `The relationship ${field.id} has more than one partner field.`);
  }
  return candidates[0];
}

/** A contradiction in a relationship pair, as a sentence; undefined when the pair is fine. */
export function pairProblem(field: Field, partner: Field): string | undefined {
  if (!field.relationshipOwner && !partner.relationshipOwner) {
    return `Both ${field.id} and its partner ${partner.id} have relationshipOwner false; only the belongs-to side may.`;
  }
  const fieldMany = isToMany(field);
  const partnerMany = isToMany(partner);
  if (fieldMany && partnerMany) return undefined;
  if (fieldMany !== partnerMany) {
    const one = fieldMany ? partner : field;
    if (one.relationshipOwner) {
      return `${one.id} is the to-one side of a one-to-many relationship (the belongs-to pointer): its relationshipOwner must be false.`;
    }
    return undefined;
  }
  if (field.relationshipOwner && partner.relationshipOwner) {
    return `The one-to-one relationship between ${field.id} and ${partner.id} is ambiguous: set relationshipOwner false on the side that holds the foreign key.`;
  }
  return undefined;
}

/** Both sides to-many (or an unpartnered to-many): stored in a join table. */
export function isManyToMany(def: WithModels, model: Model, field: Field): boolean {
  return relationshipStorage(def, model, field).kind === 'joinTable';
}

export type RelationshipStorage =
  | {
      kind: 'foreignKey';
      /** The model whose table holds the column. */
      model: Model;
      /** The to-one field whose column (`column`) holds the id of the target record. */
      field: Field;
      column: string;
    }
  | {
      kind: 'joinTable';
      table: string;
      /** Column holding the id of the record that has the asked field. */
      ownerColumn: string;
      /** Column holding the id of the record the asked field points to. */
      targetColumn: string;
    };

/**
 * Where a relationship is stored, asked from either side. In a partnered join
 * table, the column named after field X holds the id of the record owning X.
 */
export function relationshipStorage(def: WithModels, model: Model, field: Field): RelationshipStorage {
  if (!isRelationship(field)) throw new Problem(409, `${field.id} is not a relationship.`);
  const partner = findPartner(def, model, field);
  if (!partner) {
    if (!isToMany(field)) return { kind: 'foreignKey', model, field, column: columnNameForField(field.id) };
    return {
      kind: 'joinTable',
      table: joinTableName(field.id, field.id),
      ownerColumn: 'source_id',
      targetColumn: 'target_id',
    };
  }
  const problem = pairProblem(field, partner);
  if (problem) throw new Problem(409, problem);
  if (isToMany(field) && isToMany(partner)) {
    return {
      kind: 'joinTable',
      table: joinTableName(field.id, partner.id),
      ownerColumn: columnNameForField(field.id),
      targetColumn: columnNameForField(partner.id),
    };
  }
  // One side to-one: the one with relationshipOwner false (for one-to-many, it is the to-one side).
  const holder = !field.relationshipOwner ? field : partner;
  const holderModel = holder === field ? model : findModel(def, field.to);
  if (!holderModel) throw new Problem(409, `The model ${field.to} does not exist.`);
  return { kind: 'foreignKey', model: holderModel, field: holder, column: columnNameForField(holder.id) };
}

/** True when `field` itself is the foreign-key column on its model's table. */
export function holdsForeignKey(def: WithModels, model: Model, field: Field): boolean {
  if (!isRelationship(field)) return false;
  const storage = relationshipStorage(def, model, field);
  return storage.kind === 'foreignKey' && storage.field.id === field.id;
}
