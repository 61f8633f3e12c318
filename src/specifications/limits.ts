/**
 * What one document may hold, checked before and while it is read: a document past a cap is
 * refused with a message naming the cap, instead of being read for minutes. Time and memory
 * are bounded apart, by the worker that reads documents (sandbox.ts).
 *
 * The counts of models, fields, actions, requirements and pages are the definition's own list
 * limit (a specification past it could never validate); the others leave room for any real
 * document while keeping one read within seconds.
 */
import { MAX_LIST, MAX_SHORT_LIST } from '../definition/schema.ts';
import { ExtractionError, type Draft } from './extractors/types.ts';

export const DOCUMENT_LIMITS = {
  /** Pages of a PDF whose text is read. */
  pdfPages: 500,
  /** A YAML document's length in characters (JSON, parsed natively, may be as long as the attachment). */
  yamlChars: 4 * 1024 * 1024,
  /** Values (scalars, flow collections) of a YAML document: `yaml` spends ~35 µs and ~1 KB of heap on each. */
  yamlNodes: 150_000,
  /** Nesting of collections in a YAML or JSON document. */
  nestingDepth: 128,
  /** Aliases a YAML document may resolve (its parser's own bound on `*anchor` expansion). */
  yamlAliases: 1000,
  /** Statements of a SQL script. */
  sqlStatements: 20_000,
  /** One SQL statement's length in characters: a longer CREATE TABLE is refused before it is parsed. */
  sqlStatementChars: 256 * 1024,
  /** Columns of a SQL table or a CSV file, and fields of one model. */
  columns: MAX_LIST,
  /** Data rows, and cells, of a CSV file read to infer its columns' types (~3 µs a cell); the rest are not read. */
  csvRows: 100_000,
  csvCells: 2_000_000,
  /** One CSV record's length in characters (csv-parse's `max_record_size`). */
  csvRecordChars: 1024 * 1024,
  models: MAX_LIST,
  actions: MAX_LIST,
  requirements: MAX_LIST,
  personas: MAX_SHORT_LIST,
  pages: MAX_LIST,
} as const;

/** `n` formatted for a message: 50,000. */
export const formatCount = (n: number): string => n.toLocaleString('en-US');
const count = formatCount;

/** `what` (e.g. "has 20,000 pages") is past `limit` (e.g. "500 pages"): the document is refused. */
export function pastLimit(what: string, limit: number, unit: string): ExtractionError {
  return new ExtractionError(`${what}, more than the limit of ${count(limit)} ${unit}`);
}

/** The lists of a draft, or of the drafts merged. */
interface DraftLists {
  models: unknown[];
  actions: unknown[];
  requirements: unknown[];
  personas: unknown[];
  pages: unknown[];
}

/**
 * Refuses a draft (or the drafts merged) that describes more elements than a definition holds,
 * before anything is built from it; `describes` begins the message ("the document describes").
 */
export function checkDraftSize(draft: DraftLists, describes: string): void {
  const lists: Array<[keyof typeof DOCUMENT_LIMITS, number, string]> = [
    ['models', draft.models.length, 'models'],
    ['actions', draft.actions.length, 'operations'],
    ['requirements', draft.requirements.length, 'requirements (user stories)'],
    ['personas', draft.personas.length, 'personas'],
    ['pages', draft.pages.length, 'pages'],
  ];
  for (const [key, found, unit] of lists) {
    const limit = DOCUMENT_LIMITS[key];
    if (found > limit) throw pastLimit(`${describes} ${count(found)} ${unit}`, limit, unit);
  }
}

/** Leaves out of a document's draft each model of more fields than a model may have, with a warning naming the limit. */
export function dropOversizeModels(draft: Draft): void {
  const limit = DOCUMENT_LIMITS.columns;
  draft.models = draft.models.filter((model) => {
    if (model.fields.length <= limit) return true;
    draft.warnings.push({ locator: model.locator, message: `the model ${model.name} has ${count(model.fields.length)} fields, more than the limit of ${count(limit)} per model: left out` });
    return false;
  });
}
