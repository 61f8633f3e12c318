/**
 * fast-check arbitraries from the JSON Schemas (2020-12, as OpenAPI 3.1 says) of the service's
 * documents, for the subset they use: type (or a list of types), const, enum, anyOf/oneOf
 * (one branch), allOf (objects merged), objects (properties, required, additionalProperties),
 * arrays (items, minItems, maxItems), strings (length, pattern, the formats uuid/date/date-time/
 * email/uri), numbers (minimum/maximum), booleans and null. A value the generator gets wrong is
 * caught by the caller's Ajv check: it validates every generated value before sending it.
 */
import fc, { type Arbitrary } from 'fast-check';
import { sampleOf } from './openapi.ts';

export type Schema = Record<string, unknown>;

/** Resolves a `#/…` reference of the document the schema belongs to. */
export type Resolver = (ref: string) => Schema | undefined;

const FORMATS: Record<string, Arbitrary<string>> = {
  uuid: fc.uuid(),
  date: fc.date({ min: new Date('1971-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  'date-time': fc.date({ min: new Date('1971-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  email: fc.tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/), fc.constantFrom('example.test', 'mail.test')).map(([l, d]) => `${l}@${d}`),
  uri: fc.constantFrom('https://example.test/', 'https://example.test/a?b=c', 'http://localhost/x'),
};

function typeOf(schema: Schema): string | undefined {
  if (Array.isArray(schema.type)) return (schema.type as string[]).find((t) => t !== 'null') ?? 'null';
  return schema.type as string | undefined;
}

function stringArbitrary(schema: Schema): Arbitrary<string> {
  const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
  if (format) return format;
  const minLength = Number(schema.minLength ?? 0);
  const maxLength = Math.min(Number(schema.maxLength ?? minLength + 24), minLength + 24);
  if (typeof schema.pattern === 'string') {
    try {
      const pattern = new RegExp(schema.pattern, 'u');
      return fc.stringMatching(pattern).filter((s) => [...s].length >= minLength && [...s].length <= Number(schema.maxLength ?? Infinity));
    } catch {
      return fc.constant(String(sampleOf(schema)));
    }
  }
  return fc.string({ minLength, maxLength, unit: 'grapheme-ascii' });
}

function numberArbitrary(schema: Schema, integer: boolean): Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -1e6;
  const max = typeof schema.maximum === 'number' ? schema.maximum : Math.max(min + 1e6, 1e6);
  if (integer) return fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, Number.MAX_SAFE_INTEGER)) });
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

/** An arbitrary of values `schema` accepts (mostly: see the file's note), `$ref`s followed `depth` levels. */
export function arbitraryOf(schema: Schema | undefined, resolve: Resolver, depth = 5): Arbitrary<unknown> {
  if (!schema || depth < 0) return fc.constant(sampleOf(schema));
  if (typeof schema.$ref === 'string') return arbitraryOf(resolve(schema.$ref), resolve, depth - 1);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...(schema.enum as unknown[]));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key] as Schema[] | undefined;
    if (branches?.length) return fc.oneof(...branches.map((b) => arbitraryOf(b, resolve, depth - 1)));
  }
  if (Array.isArray(schema.allOf)) {
    return fc.tuple(...(schema.allOf as Schema[]).map((s) => arbitraryOf(s, resolve, depth - 1))).map((parts) => Object.assign({}, ...parts) as unknown);
  }
  const type = typeOf(schema);
  const nullable = Array.isArray(schema.type) && (schema.type as string[]).includes('null');
  const value = ((): Arbitrary<unknown> => {
    switch (type) {
      case 'object': {
        const properties = (schema.properties ?? {}) as Record<string, Schema>;
        const required = (schema.required ?? []) as string[];
        const members = Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, arbitraryOf(s, resolve, depth - 1)]));
        for (const name of required) members[name] ??= fc.constant(sampleOf(undefined));
        return fc.record(members, { requiredKeys: required.filter((name) => name in members) });
      }
      case 'array': {
        const minLength = Number(schema.minItems ?? 0);
        const maxLength = Math.min(Number(schema.maxItems ?? minLength + 3), minLength + 3);
        return fc.array(arbitraryOf(schema.items as Schema | undefined, resolve, depth - 1), { minLength, maxLength });
      }
      case 'string':
        return stringArbitrary(schema);
      case 'integer':
        return numberArbitrary(schema, true);
      case 'number':
        return numberArbitrary(schema, false);
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      default:
        return fc.constant(sampleOf(schema));
    }
  })();
  return nullable ? fc.oneof(value, fc.constant(null)) : value;
}

/** A value of another JSON type than `schema` says (a string for a number, a number for a string…). */
function wrongType(schema: Schema | undefined, resolve: Resolver): unknown[] {
  const target = schema && typeof schema.$ref === 'string' ? resolve(schema.$ref) : schema;
  switch (target && typeOf(target)) {
    case 'string':
      return [12345, true, ['x']];
    case 'integer':
    case 'number':
      return ['not a number', { n: 1 }];
    case 'boolean':
      return ['yes', 0];
    case 'array':
      return ['x', { a: 1 }];
    case 'object':
      return ['x', [1], 7];
    default:
      return [{ unexpected: [1, 2] }];
  }
}

/**
 * Candidate schema-invalid versions of a valid object body: one member of the wrong type, a required
 * one left out, or an unknown one added where `additionalProperties` is false. The caller keeps
 * those Ajv refuses.
 */
export function mutationsOf(value: unknown, schema: Schema | undefined, resolve: Resolver): unknown[] {
  const target = schema && typeof schema.$ref === 'string' ? resolve(schema.$ref) : schema;
  if (!target) return [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [...wrongType(target, resolve), ...(Array.isArray(value) ? [{ notAnArray: true }] : [])];
  const record = value as Record<string, unknown>;
  const properties = (target.properties ?? {}) as Record<string, Schema>;
  const out: unknown[] = ['not an object', [record]];
  for (const name of Object.keys(properties)) for (const wrong of wrongType(properties[name], resolve)) out.push({ ...record, [name]: wrong });
  for (const name of (target.required ?? []) as string[]) {
    const { [name]: _left, ...rest } = record;
    out.push(rest);
  }
  if (target.additionalProperties === false) out.push({ ...record, notDocumented: 1 });
  return out;
}

/**
 * Query strings a query parameter's schema refuses: another type (a word for a number or a boolean),
 * a number under its minimum or over its maximum, a value outside its enum, a string past its
 * maxLength or not of its format. Parameters without such constraints give none: any text is valid.
 */
export function queryMutationsOf(schema: Schema | undefined, resolve: Resolver): string[] {
  const target = schema && typeof schema.$ref === 'string' ? resolve(schema.$ref) : schema;
  if (!target) return [];
  const out: string[] = [];
  if (Array.isArray(target.enum) && target.enum.every((v) => typeof v === 'string')) out.push('not-one-of-them');
  switch (typeOf(target)) {
    case 'integer':
    case 'number':
      out.push('many');
      if (typeof target.minimum === 'number') out.push(String(target.minimum - 1));
      if (typeof target.maximum === 'number') out.push(String(target.maximum + 1));
      if (typeOf(target) === 'integer') out.push('1.5');
      break;
    case 'boolean':
      out.push('perhaps');
      break;
    case 'string':
      if (typeof target.maxLength === 'number') out.push('a'.repeat(target.maxLength + 1));
      if (target.format === 'uuid') out.push('not-a-uuid');
      if (target.format === 'date-time' || target.format === 'date') out.push('yesterday');
      break;
  }
  return out;
}
