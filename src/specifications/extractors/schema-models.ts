/**
 * Named JSON Schemas → draft models, shared by the OpenAPI/Swagger and JSON Schema extractors
 * (DESIGN §13): object schemas are models; a `$ref` to one is a to-one relationship, an array
 * of such refs a to-many; `enum`, `required`, `default` and `format` carry over; `allOf` is
 * merged. `$ref`s are resolved by json-schema-ref-parser (never by hand) and never expanded
 * in place, so circular references cannot loop.
 */
import pluralize from 'pluralize';
import type { EnumValue, PrimitiveType } from '../../definition/schema.ts';
import { ExtractionError } from './types.ts';
import type { DraftField, DraftModel, DraftWarning } from './types.ts';

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** One schema with a name: `#/components/schemas/Pet` → `Pet`. */
export interface NamedSchema {
  name: string;
  pointer: string;
}

const FORMATS: Record<string, PrimitiveType> = {
  date: 'p_DATE',
  'date-time': 'p_DATE_TIME',
  time: 'p_TIME',
  uri: 'p_LINK',
  url: 'p_LINK',
  iri: 'p_LINK',
  'uri-reference': 'p_LINK',
  'iri-reference': 'p_LINK',
  binary: 'p_FILE',
};
/** Keys that make an inline object read as a postal address rather than a nested record. */
const ADDRESS_KEYS = ['street', 'city', 'zip', 'zipcode', 'postalcode', 'postcode', 'country', 'state'];
const NESTED_LIMIT = 20;

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

// Imported on first use: only an OpenAPI or JSON Schema attachment's extraction resolves $refs (issue 28).
type RefParser = typeof import('@apidevtools/json-schema-ref-parser').default;
let refParser: Promise<RefParser> | undefined;
function loadRefParser(): Promise<RefParser> {
  refParser ??= import('@apidevtools/json-schema-ref-parser').then((module) => module.default);
  return refParser;
}

/** Resolves internal `$ref`s of one document; external ones (files, URLs) are never fetched. */
export async function refResolver(document: Json): Promise<(ref: string) => unknown> {
  const $RefParser = await loadRefParser();
  const $refs = await new $RefParser()
    .resolve(structuredClone(document), { resolve: { external: false }, dereference: { circular: 'ignore' } })
    .catch((error: unknown) => {
      throw new ExtractionError(`the document's $refs cannot be resolved: ${(error as Error).message}`);
    });
  // Each `$ref` looked up once: a document's schemas point at the same few many times over.
  const cache = new Map<string, unknown>();
  return (ref: string) => {
    if (!ref.startsWith('#')) return undefined;
    if (cache.has(ref)) return cache.get(ref);
    let value: unknown;
    try {
      value = $refs.get(ref);
    } catch {
      value = undefined;
    }
    cache.set(ref, value);
    return value;
  };
}

/**
 * What schema-shapes.ts decided about the named schemas: the model each belongs to (variants of
 * one entity share one), which are request variants, and which are no model at all and why.
 */
export interface SchemaPlan {
  modelName: Map<string, string>;
  request: Set<string>;
  leftOut: Map<string, string>;
  /** An envelope's pointer → the pointer of the records it holds. */
  envelopeOf: Map<string, string>;
}

const flatName = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * A request shape's property that is the entity's own under the entity's name (`ProjectReq.project_name`
 * beside `Project.name`) is that property, not a write-only one of its own.
 */
function dropPrefixedAliases(model: DraftModel): void {
  const prefix = flatName(model.name);
  const readable = new Set(model.fields.filter((f) => !f.writeOnly).map((f) => flatName(f.name)));
  model.fields = model.fields.filter((f) => {
    const flat = flatName(f.name);
    return !(f.writeOnly && flat.startsWith(prefix) && readable.has(flat.slice(prefix.length)));
  });
}

export class SchemaModels {
  private readonly byPointer = new Map<string, NamedSchema>();
  readonly warnings: DraftWarning[] = [];
  private readonly nested: string[] = [];
  private plan: SchemaPlan = { modelName: new Map(), request: new Set(), leftOut: new Map(), envelopeOf: new Map() };
  /** Per left-out schema's pointer: the fields that pointed at it (left out with it). */
  private readonly pointing = new Map<string, string[]>();

  constructor(
    private readonly named: NamedSchema[],
    private readonly resolve: (ref: string) => unknown,
  ) {
    for (const schema of named) this.byPointer.set(schema.pointer, schema);
  }

  usePlan(plan: SchemaPlan): void {
    this.plan = plan;
  }

  /** An object schema (properties or an allOf of them) is a model; a string enum or alias is a value. */
  isModelSchema(schema: unknown, seen = new Set<string>()): boolean {
    if (!isObject(schema)) return false;
    if (typeof schema.$ref === 'string') {
      if (seen.has(schema.$ref)) return false;
      seen.add(schema.$ref);
      return this.isModelSchema(this.resolve(schema.$ref), seen);
    }
    if (isObject(schema.properties)) return true;
    if (Array.isArray(schema.allOf)) return schema.allOf.some((part) => this.isModelSchema(part, seen));
    return schema.type === 'object' && !isObject(schema.additionalProperties);
  }

  /** The named model a `$ref` points at, when it points at one. */
  modelOf(ref: string): string | undefined {
    const target = this.byPointer.get(ref);
    if (!target || this.plan.leftOut.has(ref)) return undefined;
    return this.isModelSchema(this.resolve(ref)) ? (this.plan.modelName.get(ref) ?? target.name) : undefined;
  }

  /** A property pointing (or listing) a left-out schema is left out with it, and named in its warning. */
  private pointsAtLeftOut(schema: Json, where: string): boolean {
    const items = isObject(schema.items) ? schema.items : {};
    const ref = typeof schema.$ref === 'string' ? schema.$ref : (this.wrappedRef(schema) ?? (typeof items.$ref === 'string' ? items.$ref : this.wrappedRef(items)));
    if (!ref || !this.plan.leftOut.has(ref)) return false;
    const list = this.pointing.get(ref);
    if (list) list.push(where);
    else this.pointing.set(ref, [where]);
    return true;
  }

  private readonly collected = new Map<string, { properties: Map<string, unknown>; required: Set<string> }>();

  /** A named schema's properties and required names, collected once for the plan and the models. */
  propertiesOf(pointer: string): { properties: Map<string, unknown>; required: Set<string> } {
    let out = this.collected.get(pointer);
    if (!out) {
      out = { properties: new Map<string, unknown>(), required: new Set<string>() };
      this.collect(this.resolve(pointer), new Set([pointer]), out);
      this.collected.set(pointer, out);
    }
    return out;
  }

  /** Properties and required names, `allOf` merged (each `$ref` followed once). */
  private collect(schema: unknown, seen: Set<string>, out: { properties: Map<string, unknown>; required: Set<string> }): void {
    if (!isObject(schema)) return;
    if (typeof schema.$ref === 'string') {
      if (seen.has(schema.$ref)) return;
      seen.add(schema.$ref);
      this.collect(this.resolve(schema.$ref), seen, out);
      return;
    }
    for (const part of Array.isArray(schema.allOf) ? schema.allOf : []) this.collect(part, seen, out);
    if (isObject(schema.properties)) {
      for (const [name, property] of Object.entries(schema.properties)) out.properties.set(name, property);
    }
    if (Array.isArray(schema.required)) {
      for (const name of schema.required) if (typeof name === 'string') out.required.add(name);
    }
  }

  /** A single `$ref` behind `allOf: [{$ref}]` or `anyOf: [{$ref}, {type: null}]`, as documents often wrap one. */
  wrappedRef(schema: Json): string | undefined {
    for (const key of ['allOf', 'anyOf', 'oneOf']) {
      const parts = schema[key];
      if (!Array.isArray(parts)) continue;
      const refs = parts.filter((p): p is Json => isObject(p) && typeof p.$ref === 'string');
      const rest = parts.filter((p) => !(isObject(p) && typeof p.$ref === 'string') && !(isObject(p) && p.type === 'null'));
      if (refs.length === 1 && rest.length === 0) return refs[0]!.$ref as string;
    }
    return undefined;
  }

  private primitive(schema: Json, seen = new Set<string>()): { type: PrimitiveType; enum?: EnumValue[] } | undefined {
    if (typeof schema.$ref === 'string') {
      const target = this.resolve(schema.$ref);
      if (!isObject(target) || seen.has(schema.$ref)) return undefined;
      seen.add(schema.$ref);
      return this.primitive(target, seen);
    }
    const wrapped = this.wrappedRef(schema);
    if (wrapped) return this.primitive({ $ref: wrapped }, seen);
    const types = Array.isArray(schema.type) ? schema.type.filter((t) => t !== 'null') : [schema.type];
    const type = types[0];
    const values = Array.isArray(schema.enum)
      ? schema.enum.filter((v): v is EnumValue => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
      : undefined;
    const withEnum = (t: PrimitiveType) => (values && values.length > 0 ? { type: t, enum: values } : { type: t });
    if (type === 'integer' || type === 'number') return withEnum('p_NUMBER');
    if (type === 'boolean') return withEnum('p_BOOLEAN');
    if (type === 'string' || (type === undefined && values && values.every((v) => typeof v === 'string'))) {
      const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
      return withEnum(format ?? 'p_TEXT');
    }
    return undefined;
  }

  private field(model: string, name: string, schema: unknown, required: boolean, locator: string): DraftField | undefined {
    const base = { name, many: false, required, locator };
    if (!isObject(schema) || this.pointsAtLeftOut(schema, `${model}.${name}`)) return undefined;
    const ref = typeof schema.$ref === 'string' ? schema.$ref : this.wrappedRef(schema);
    const target = ref ? this.modelOf(ref) : undefined;
    if (target) return { ...base, type: { model: target } };
    if (schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array'))) {
      const items = isObject(schema.items) ? schema.items : {};
      const itemRef = typeof items.$ref === 'string' ? items.$ref : this.wrappedRef(items);
      const itemModel = itemRef ? this.modelOf(itemRef) : undefined;
      if (itemModel) return { ...base, type: { model: itemModel }, many: true };
      const item = this.primitive(items);
      if (item) return { ...base, ...item, many: true };
      this.nested.push(`${model}.${name}`);
      return undefined;
    }
    const primitive = this.primitive(schema);
    if (primitive) {
      const field: DraftField = { ...base, ...primitive };
      const value = schema.default;
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') field.defaultValue = value;
      return field;
    }
    if (ref && this.resolve(ref) === undefined) {
      this.warnings.push({ locator, message: `$ref ${ref} points outside the document or nowhere: read as text` });
      return { ...base, type: 'p_TEXT' };
    }
    if (isObject(schema.properties)) {
      const keys = Object.keys(schema.properties).map((k) => k.toLowerCase().replace(/[^a-z]/g, ''));
      if (keys.filter((k) => ADDRESS_KEYS.includes(k)).length >= 2) return { ...base, type: 'p_ADDRESS' };
    }
    this.nested.push(`${model}.${name}`);
    return undefined;
  }

  models(): DraftModel[] {
    // Fields by name per model, so a schema of many properties merges in linear time.
    const byName = new Map<string, { model: DraftModel; rank: number; byField: Map<string, DraftField> }>();
    for (const { name: schemaName, pointer } of this.named) {
      const schema = this.resolve(pointer);
      if (this.plan.leftOut.has(pointer) || !this.isModelSchema(schema)) continue;
      const name = this.plan.modelName.get(pointer) ?? schemaName;
      const request = this.plan.request.has(pointer);
      const collected = this.propertiesOf(pointer);
      let entry = byName.get(name);
      if (!entry) {
        entry = { model: { name, fields: [], locator: pointer }, rank: -2, byField: new Map() };
        byName.set(name, entry);
      }
      // The entity's own schema (`Pet` among `NewPet`, `PetUpdate`), else its largest response shape, gives the model's locator.
      const rank = schemaName === name ? Infinity : request ? -1 : collected.properties.size;
      if (rank > entry.rank) {
        entry.model.locator = pointer;
        entry.rank = rank;
      }
      for (const [property, propertySchema] of collected.properties) {
        const locator = `${pointer}/properties/${escapePointer(property)}`;
        const field = this.field(name, property, propertySchema, collected.required.has(property), locator);
        if (!field) continue;
        const writeOnly = request || (isObject(propertySchema) && propertySchema.writeOnly === true);
        const existing = entry.byField.get(field.name);
        if (!existing) {
          if (writeOnly) field.writeOnly = true;
          entry.model.fields.push(field);
          entry.byField.set(field.name, field);
          continue;
        }
        existing.required ||= field.required;
        if (existing.writeOnly && !writeOnly) delete existing.writeOnly;
      }
    }
    for (const { model } of byName.values()) dropPrefixedAliases(model);
    this.leftOutWarnings();
    if (this.nested.length > 0) {
      const shown = this.nested.slice(0, NESTED_LIMIT).join(', ');
      const more = this.nested.length > NESTED_LIMIT ? ` and ${this.nested.length - NESTED_LIMIT} more` : '';
      this.warnings.push({
        locator: 'document',
        message: `${pluralize('property', this.nested.length, true)} holding inline objects (not named schemas) left out: ${shown}${more}`,
      });
    }
    return [...byName.values()].map((e) => e.model);
  }

  /** One warning per left-out schema, naming it, why, and the fields that pointed at it. */
  private leftOutWarnings(): void {
    for (const [pointer, reason] of this.plan.leftOut) {
      const name = this.byPointer.get(pointer)?.name ?? pointer;
      const fields = this.pointing.get(pointer) ?? [];
      const shown = fields.slice(0, NESTED_LIMIT).join(', ');
      const more = fields.length > NESTED_LIMIT ? ` and ${fields.length - NESTED_LIMIT} more` : '';
      const also = fields.length > 0 ? `; the ${pluralize('field', fields.length)} pointing at it left out too: ${shown}${more}` : '';
      this.warnings.push({ locator: pointer, message: `${name} ${reason}: not made a model${also}.` });
    }
  }
}
