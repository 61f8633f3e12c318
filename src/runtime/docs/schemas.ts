/**
 * JSON Schemas (OpenAPI 3.1 dialect, i.e. JSON Schema 2020-12) of one served version's
 * records: the primitive types of DESIGN §3 as their JSON values, and per model the
 * shapes the generated API reads and writes (DESIGN §6):
 * - `{Model}`: a record as listed or read, relationships expanded one level (an object,
 *   or its id when the caller may not read it);
 * - `{Model}Embedded`: a record inside another one, relationships as ids;
 * - `{Model}Create` / `{Model}Update`: a write body, relationships as ids;
 * - `{Model}Page`: a list page `{items, total, offset}`.
 */
import { describeDefaultExpression } from '../../definition/default-value.ts';
import type { PrimitiveType } from '../../definition/schema.ts';
import type { CompiledApp, CompiledField, CompiledModel } from '../compiled-app.ts';
import { DEFAULT_EMBEDDED_ID_LIMIT, DEFAULT_RELATION_LIMIT } from '../data/record-json.ts';
import { computedSchema } from './computed-schema.ts';
import { NO_NUL_PATTERN } from '../../tools/text-rules.ts';

export type JsonSchema = Record<string, unknown>;

const UUID: JsonSchema = { type: 'string', format: 'uuid' };

/** A file field's value (DESIGN §6, "Files"). */
const FILE_VALUE =
  'Written as the `key` POST /files answered, or an https URL. Read as a URL: an https URL as written, a key as the absolute URL of GET /files/{key} of this version.';

/** The JSON value of each primitive type, as reads answer it and writes take it. */
export const PRIMITIVE_SCHEMAS: Readonly<Record<PrimitiveType, JsonSchema>> = {
  p_TEXT: { type: 'string', pattern: NO_NUL_PATTERN },
  p_NUMBER: { type: 'number' },
  p_BOOLEAN: { type: 'boolean' },
  p_DATE: { type: 'string', format: 'date' },
  p_DATE_TIME: { type: 'string', format: 'date-time' },
  p_TIME: { type: 'string', pattern: '^([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d+)?)?$', description: 'HH:MM or HH:MM:SS' },
  p_STAR_RATING: { type: 'integer', minimum: 0, maximum: 5 },
  p_LINK: { type: 'string', format: 'uri', description: 'An http(s) URL.' },
  p_IMAGE: { type: 'string', description: FILE_VALUE },
  p_VIDEO: { type: 'string', description: FILE_VALUE },
  p_FILE: { type: 'string', description: FILE_VALUE },
  p_PHONE_NUMBER: { type: 'string', pattern: '^\\+[1-9]\\d{1,14}$', description: 'E.164, e.g. +14155550123.' },
  p_ADDRESS: { type: 'object', additionalProperties: true },
  p_CURRENCY_AMOUNT: {
    type: 'object',
    properties: { amount: { type: 'number' }, currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code.' } },
    required: ['amount', 'currency'],
  },
};

/** A name safe for component keys and operation ids (`[A-Za-z0-9_]`). */
export function safeName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_]+/g, '_').replace(/^_+|_+$/g, '');
  return cleaned === '' ? 'Model' : cleaned;
}

export const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** Adds `null` to what a schema accepts (3.1 style, no `nullable`). */
function orNull(schema: JsonSchema): JsonSchema {
  return { anyOf: [schema, { type: 'null' }] };
}

/**
 * How one related record appears: its id, (expanded) the record itself, or (sparse, a `fields=`
 * answer) the record with the members asked for, or its id.
 */
type RelationForm = 'id' | 'expanded' | 'sparse';

/** `a Track`, `an Employee`, `a User`, `an Update`: the article a reader expects before a model's name. */
export function withArticle(name: string): string {
  // A `U` read "you" (User, Unit) takes `a`: a consonant then a vowel after it.
  const vowelSound = /^[AEIOaeio]/.test(name) || (/^[Uu]/.test(name) && !/^[Uu][^aeiouAEIOU][aeiou]/.test(name));
  return `${vowelSound ? 'an' : 'a'} ${name}`;
}

function scalarSchema(app: CompiledApp, field: CompiledField, relationForm: RelationForm): JsonSchema {
  if (field.relation) {
    const target = app.modelsById.get(field.relation.targetModelId);
    if (relationForm === 'id' || !target) return { ...UUID, description: `The id of ${target ? withArticle(target.name) : 'a record'}.` };
    if (relationForm === 'sparse') return { anyOf: [schemaRef(`${safeName(target.name)}Sparse`), { ...UUID, description: `The id of ${withArticle(target.name)}.` }] };
    return { anyOf: [schemaRef(`${safeName(target.name)}Embedded`), { ...UUID, description: `The id of ${withArticle(target.name)} the caller may not read.` }] };
  }
  const base = PRIMITIVE_SCHEMAS[field.to as PrimitiveType] ?? {};
  if (!field.enum) return { ...base };
  // The values listed say all a pattern would.
  const { pattern: _pattern, ...listed } = base;
  return { ...listed, enum: field.enum };
}

function describe(app: CompiledApp, field: CompiledField): string | undefined {
  const notes: string[] = [];
  if (field.relation) {
    // The target is named here too: a required to-one's schema is the bare id, which says only "uuid".
    const target = app.modelsById.get(field.relation.targetModelId)?.name;
    const kind = field.many ? 'To-many relationship' : 'To-one relationship';
    notes.push(target ? `${kind} to ${target}: ${field.many ? 'ids' : 'the id'} of ${field.many ? `${target} records` : withArticle(target)}.` : `${kind}.`);
  }
  if (field.computed !== undefined) notes.push(`Computed (read-only): \`${field.computed}\`.`);
  if (field.defaultExpression !== undefined) notes.push(`On create, ${describeDefaultExpression(field.defaultExpression)} when left out.`);
  if (field.accessControl.rules.length > 0) notes.push('Field access rules apply: the field may be hidden on read and refused on write.');
  return notes.length > 0 ? notes.join(' ') : undefined;
}

/** The schema of one field's value, as read (`relationForm` picks ids or objects) or written (ids). */
export function fieldSchema(app: CompiledApp, field: CompiledField, relationForm: RelationForm, forWrite: boolean): JsonSchema {
  let schema: JsonSchema;
  if (field.computed !== undefined) {
    schema = { readOnly: true };
  } else if (field.many) {
    schema = { type: 'array', items: scalarSchema(app, field, relationForm) };
    if (field.min > 0) schema.minItems = field.min;
    if (field.max !== null) schema.maxItems = field.max;
  } else {
    schema = scalarSchema(app, field, relationForm);
    // An optional to-one value is null when unset; on write null clears it.
    if (!field.required) schema = orNull(schema);
  }
  const description = describe(app, field);
  if (description) schema.description = description;
  if (field.defaultValue !== undefined && forWrite) schema.default = field.defaultValue;
  return schema;
}

/**
 * A to-many relationship as read: at most `relationLimit` entries, the first by id (DESIGN §6,
 * bounded relations); the whole set is paged at `GET /{resource}/{id}/{field}`.
 */
function boundedToMany(schema: JsonSchema, model: CompiledModel, field: CompiledField, relationLimit: number, variable: string): JsonSchema {
  const bound = `At most ${relationLimit} entries (${variable}), the first by id; all of them, paged: GET /${model.resource}/{id}/${field.name}.`;
  return { ...schema, maxItems: Math.min(relationLimit, (schema.maxItems as number | undefined) ?? relationLimit), description: `${schema.description ?? ''} ${bound}`.trim() };
}

function readSchema(app: CompiledApp, model: CompiledModel, relationForm: RelationForm, relationLimit: number, variable: string): JsonSchema {
  const properties: Record<string, JsonSchema> = { id: { ...UUID, readOnly: true } };
  const required = ['id'];
  for (const field of model.fields) {
    if (field.writeOnly) continue; // never read back
    let schema = fieldSchema(app, field, relationForm, false);
    if (field.computed !== undefined) schema = { ...computedSchema(app, model, field), ...(schema.description ? { description: schema.description } : {}) };
    else if (field.relation && field.many) schema = boundedToMany(schema, model, field, relationLimit, variable);
    properties[field.name] = schema;
    // A field under field rules may be left out for some callers; a sparse answer leaves out what was not asked.
    if (field.accessControl.rules.length === 0 && relationForm !== 'sparse') required.push(field.name);
  }
  return { type: 'object', properties, required, title: relationForm === 'sparse' ? `${model.name} (sparse)` : model.name };
}

function writeSchema(app: CompiledApp, model: CompiledModel, mode: 'create' | 'update'): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of model.fields) {
    if (field.computed !== undefined) continue;
    properties[field.name] = fieldSchema(app, field, 'id', true);
    if (field.writeOnly) properties[field.name].writeOnly = true;
    if (mode === 'create' && field.required && field.defaultValue === undefined && field.defaultExpression === undefined) required.push(field.name);
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

/**
 * What a list or a read answers: the whole record, or with `fields=` the sparse one. Two named
 * alternatives rather than every member optional: the typed client keeps the whole record's type
 * (members required) for the common call, and a `fields=` caller has `{Model}Sparse` to name what
 * comes back (typescript-client.ts types these answers as the whole record).
 */
export function recordAnswer(name: string): JsonSchema {
  return { anyOf: [schemaRef(name), schemaRef(`${name}Sparse`)] };
}

/** Every component schema of the app's models, keyed by component name. */
export function modelSchemas(app: CompiledApp, bounds: { relationLimit?: number; embeddedIdLimit?: number } = {}): Record<string, JsonSchema> {
  const relationLimit = bounds.relationLimit ?? DEFAULT_RELATION_LIMIT;
  const embeddedIdLimit = Math.min(relationLimit, bounds.embeddedIdLimit ?? DEFAULT_EMBEDDED_ID_LIMIT);
  const schemas: Record<string, JsonSchema> = {};
  for (const model of app.models) {
    const name = safeName(model.name);
    schemas[name] = readSchema(app, model, 'expanded', relationLimit, 'APPBUILDER_RELATION_LIMIT');
    schemas[`${name}Embedded`] = readSchema(app, model, 'id', embeddedIdLimit, 'APPBUILDER_EMBEDDED_ID_LIMIT');
    schemas[`${name}Sparse`] = {
      ...readSchema(app, model, 'sparse', relationLimit, 'APPBUILDER_RELATION_LIMIT'),
      description: `A ${model.name} as a \`fields=\` answer gives it: \`id\` and the members asked for.`,
    };
    schemas[`${name}Create`] = writeSchema(app, model, 'create');
    schemas[`${name}Update`] = writeSchema(app, model, 'update');
    schemas[`${name}Page`] = {
      type: 'object',
      properties: {
        items: { type: 'array', items: recordAnswer(name) },
        total: { type: 'integer', minimum: 0, description: 'How many records match (under the access rules and the filter).' },
        offset: { type: 'integer', minimum: 0 },
      },
      required: ['items', 'total', 'offset'],
    };
  }
  return schemas;
}
