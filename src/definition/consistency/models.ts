/** Consistency of models and fields: ids, names, `to`, min/max, enum, defaultValue (literals; expressions in expressions.ts), computed. */
import type { ProblemDetail } from '../../errors.ts';
import { fieldDefault } from '../default-value.ts';
import { resourceName } from '../naming.ts';
import { isRelationship } from '../relationships.ts';
import { isPrimitiveType, type AppDefinition, type Field, type Model } from '../schema.ts';
import { checkModelIndexes } from './indexes.ts';
import { duplicates, pointer } from './pointer.ts';
import { STRUCTURED_TYPES, expectedOf, fitsPrimitive } from './values.ts';

/** Field names the generated API uses itself. */
const RESERVED_FIELD_NAMES: ReadonlySet<string> = new Set(['id']);

export function checkModels(def: AppDefinition): ProblemDetail[] {
  const problems: ProblemDetail[] = [];
  const models = def.models;
  checkModelNames(models, problems);

  // Field ids are unique across the whole definition. Paths are built only for what is reported:
  // a 1,000-model definition has some 13,000 fields (issue 28).
  const fieldAt = (i: number, k: number) => pointer('models', i, 'fields', k);
  const firstField = new Map<string, { i: number; k: number }>();
  models.forEach((model, i) => {
    model.fields.forEach((field, k) => {
      const first = firstField.get(field.id);
      if (first === undefined) firstField.set(field.id, { i, k });
      else problems.push({ path: `${fieldAt(i, k)}/id`, message: `Duplicate field id '${field.id}' (also ${fieldAt(first.i, first.k)}).` });
    });
  });

  const modelIds = new Set(models.map((m) => m.id));
  models.forEach((model, i) => checkModelFields(model, i, modelIds, problems));
  return problems;
}

/** Model ids, names and resource names: unique, and a name that makes a resource name. */
export function checkModelNames(models: readonly Model[], problems: ProblemDetail[]): void {
  for (const { index, first } of duplicates(models, (m) => m.id)) {
    problems.push({ path: pointer('models', index, 'id'), message: `Duplicate model id '${models[index].id}' (also ${pointer('models', first)}).` });
  }
  for (const { index, first } of duplicates(models, (m) => m.name)) {
    problems.push({ path: pointer('models', index, 'name'), message: `Duplicate model name '${models[index].name}' (also ${pointer('models', first)}).` });
  }
  models.forEach((model, i) => {
    if (resourceName(model.name) === '') {
      problems.push({ path: pointer('models', i, 'name'), message: 'A model name needs at least one letter or digit.' });
    }
  });
  for (const { index, first } of duplicates(models, (m) => resourceName(m.name) || undefined)) {
    if (models[index].name === models[first].name) continue; // reported above as a duplicate name
    problems.push({
      path: pointer('models', index, 'name'),
      message: `The model name '${models[index].name}' gives the resource name '${resourceName(models[index].name)}', already used by ${pointer('models', first)}.`,
    });
  }
}

/**
 * The problems of one model's fields on their own (`i`: the model's index): names unique in the
 * model, and each field's members. What they depend on beyond the model is whether each
 * relationship's target is in `modelIds`.
 */
export function checkModelFields(model: Model, i: number, modelIds: { has(id: string): boolean }, problems: ProblemDetail[]): void {
  for (const { index, first } of duplicates(model.fields, (f) => f.name)) {
    problems.push({
      path: pointer('models', i, 'fields', index, 'name'),
      message: `Duplicate field name '${model.fields[index].name}' in model ${model.name} (also ${pointer('models', i, 'fields', first)}).`,
    });
  }
  model.fields.forEach((field, k) => checkField(field, i, k, modelIds, problems));
  checkModelIndexes(model, i, problems);
}

/** The problems of one field, added to `problems` (its path, `/models/i/fields/k`, built only for a problem). */
function checkField(field: Field, i: number, k: number, modelIds: { has(id: string): boolean }, problems: ProblemDetail[]): void {
  const add = (member: string, message: string) => problems.push({ path: `${pointer('models', i, 'fields', k)}/${member}`, message });

  if (RESERVED_FIELD_NAMES.has(field.name)) add('name', `The field name '${field.name}' is reserved (every record has it).`);

  const relationship = isRelationship(field);
  if (relationship ? !modelIds.has(field.to) : !isPrimitiveType(field.to)) {
    add('to', `'${field.to}' is neither a model id of this application nor a primitive type.`);
  }

  if (!Number.isInteger(field.min) || field.min < 0) add('min', 'min must be a whole number, 0 or more.');
  if (field.max !== null) {
    if (!Number.isInteger(field.max) || field.max < 1) add('max', 'max must be a whole number, 1 or more, or null.');
    else if (field.min > field.max) add('min', `min (${field.min}) is greater than max (${field.max}).`);
  }

  const declared = fieldDefault(field.defaultValue);
  if (declared?.kind === 'expression' && (typeof declared.source !== 'string' || declared.source.trim() === '')) {
    add('defaultValue/expression', 'A default expression is a CEL expression written as a non-empty string.');
  }
  if (relationship) {
    if (field.enum !== undefined) add('enum', 'A relationship field cannot have an enum.');
    if (field.computed !== undefined) add('computed', 'A relationship field cannot be computed.');
    if (field.writeOnly) add('writeOnly', 'A relationship field cannot be write-only.');
    return;
  }
  if (field.writeOnly && field.computed !== undefined) add('writeOnly', 'A computed field is only read: it cannot be write-only.');
  if (!isPrimitiveType(field.to)) return;
  const type = field.to;

  if (field.enum !== undefined) {
    if (STRUCTURED_TYPES.has(type)) add('enum', `A ${type} field cannot have an enum.`);
    else if (field.enum.length === 0) add('enum', 'An enum needs at least one value.');
    else {
      field.enum.forEach((value, j) => {
        if (!fitsPrimitive(type, value)) add(`enum/${j}`, `${JSON.stringify(value)} is not ${expectedOf(type)} (the field is ${type}).`);
      });
      for (const { index } of duplicates(field.enum, (v) => JSON.stringify(v))) {
        add(`enum/${index}`, `Duplicate enum value ${JSON.stringify(field.enum[index])}.`);
      }
    }
  }

  const literal = declared?.kind === 'literal' ? declared.value : undefined;
  if (literal !== undefined && literal !== null) {
    const many = field.max === null || field.max > 1;
    const values: unknown[] = many && Array.isArray(literal) ? literal : [literal];
    if (many && !Array.isArray(literal)) {
      add('defaultValue', `The field holds several values: its defaultValue must be an array of ${expectedOf(type)}.`);
    } else if (values.some((v) => !fitsPrimitive(type, v))) {
      add('defaultValue', `The defaultValue ${JSON.stringify(literal)} is not ${expectedOf(type)} (the field is ${type}).`);
    } else if (field.enum !== undefined && values.some((v) => !field.enum?.some((e) => e === v))) {
      add('defaultValue', `The defaultValue ${JSON.stringify(literal)} is not one of the enum values.`);
    }
  }
}
