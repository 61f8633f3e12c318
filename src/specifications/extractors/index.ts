/**
 * Which extractor reads which attachment kind (DESIGN §13). One module per format;
 * a kind without an entry (image, text, other) gives a warning, not a failure.
 */
import type { AttachmentKind, Extractor } from './types.ts';
import { extractSql } from './sql.ts';
import { extractOpenApi } from './openapi.ts';
import { extractJsonSchema } from './jsonschema.ts';
import { extractCsv } from './csv.ts';
import { extractMarkdown } from './markdown.ts';
import { extractPdf } from './pdf.ts';
import { extractFigma } from './figma.ts';

const EXTRACTORS: Partial<Record<AttachmentKind, Extractor>> = {
  sql: extractSql,
  openapi: extractOpenApi,
  jsonschema: extractJsonSchema,
  csv: extractCsv,
  markdown: extractMarkdown,
  pdf: extractPdf,
  figma: extractFigma,
};

export function extractorFor(kind: AttachmentKind): Extractor | undefined {
  return EXTRACTORS[kind];
}
