import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const common: Options = {
  allErrors: true,
  removeAdditional: false,
  useDefaults: true,
  // `errorMessage` carries the definition schema's human messages; Ajv itself ignores it.
  keywords: ['errorMessage'],
};

/**
 * Two validators: query strings and path parameters arrive as text and are coerced;
 * bodies are JSON and never are (coercion would turn `max: null` into 0).
 */
const textParts = addFormats(new Ajv({ ...common, coerceTypes: 'array' }));
const jsonBodies = addFormats(new Ajv({ ...common, coerceTypes: false }));
/** Size limits only, stopping at the first one exceeded. */
const sizeLimits = new Ajv({ allErrors: false, strict: false, validateSchema: false });

const NESTED = new Set(['items', 'additionalProperties', 'then', 'else', 'contains']);
const NESTED_LISTS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const NESTED_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions']);
const LIMITS = new Set(['maxItems', 'maxProperties', 'maxLength']);

/** `schema` with nothing but its size limits and the structure leading to them. */
function sizeLimitsOf(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return schema === false ? true : schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (LIMITS.has(key)) out[key] = value;
    else if (NESTED.has(key) && typeof value === 'object' && value !== null) out[key] = sizeLimitsOf(value);
    else if (NESTED_LISTS.has(key) && Array.isArray(value)) out[key === 'oneOf' ? 'anyOf' : key] = value.map(sizeLimitsOf);
    else if (NESTED_MAPS.has(key) && typeof value === 'object' && value !== null)
      out[key] = Object.fromEntries(Object.entries(value).map(([name, member]) => [name, sizeLimitsOf(member)]));
  }
  return out;
}

function containsLimit(schema: unknown): boolean {
  return JSON.stringify(schema).includes('"maxItems"');
}

/**
 * A body is first held against its schema's array limits alone, which stops at the first one
 * exceeded: a 200,000-element array is refused before any of its elements is validated (with
 * `allErrors`, the full validator would report on each of them).
 */
function bodyValidator(schema: object): ValidateFunction {
  const full = jsonBodies.compile(schema);
  if (!containsLimit(schema)) return full;
  const limits = sizeLimits.compile(sizeLimitsOf(schema) as object);
  const validate = ((data: unknown) => {
    if (!limits(data)) {
      validate.errors = limits.errors;
      return false;
    }
    const valid = full(data);
    validate.errors = full.errors;
    return valid;
  }) as ValidateFunction;
  return validate;
}

/** A body documented for a media type other than JSON is a stream the route reads itself (an upload): nothing to validate here. */
const streamed = (() => true) as unknown as ReturnType<FastifySchemaCompiler<object>>;

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart, contentType }) => {
  if (httpPart === 'body' && contentType !== undefined && !/^application\/(.+\+)?json$/.test(contentType)) return streamed;
  if (httpPart === 'body') return bodyValidator(schema) as ReturnType<FastifySchemaCompiler<object>>;
  return textParts.compile(schema) as ReturnType<FastifySchemaCompiler<object>>;
};
