import { Ajv, type Options } from 'ajv';
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

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? jsonBodies : textParts;
  return ajv.compile(schema) as ReturnType<FastifySchemaCompiler<object>>;
};
