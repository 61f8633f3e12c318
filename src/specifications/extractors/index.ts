/**
 * Which extractor reads which attachment kind (DESIGN §13). One module per format;
 * a kind without an entry (image, text, other) gives a warning, not a failure.
 */
import type { AttachmentKind, Extractor } from './types.ts';
import { extractSql } from './sql.ts';
import { extractOpenApi } from './openapi.ts';
import { extractJsonSchema } from './jsonschema.ts';

const EXTRACTORS: Partial<Record<AttachmentKind, Extractor>> = {
  sql: extractSql,
  openapi: extractOpenApi,
  jsonschema: extractJsonSchema,
};

export function extractorFor(kind: AttachmentKind): Extractor | undefined {
  return EXTRACTORS[kind];
}
