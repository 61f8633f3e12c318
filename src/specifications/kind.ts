/**
 * What an attachment is, read from its content (DESIGN §13): the file name and the declared
 * type only break ties between text formats. Only the head of a document is read (its first
 * 64 KiB), on the thread that answers HTTP, so every step here is bounded by that: binary formats
 * by their magic bytes (`file-type`), JSON by its members (`JSON.parse` when the head is the
 * whole document, its members' names in the head otherwise), YAML by the keys its lines start
 * with (never parsed here: `yaml` takes ~0.5 s on 64 KiB of a flow sequence), CSV by parsing
 * the head's first lines (`csv-parse`). The patterns match within a line, so no input makes
 * them backtrack across the head.
 */
import type { AttachmentKind } from './extractors/types.ts';
import { decodeDocumentText } from './text.ts';

// Each imported on first use: only an attachment's upload tells its kind (issue 28).
type FileType = typeof import('file-type');
type CsvParseSync = typeof import('csv-parse/sync');
let fileType: Promise<FileType> | undefined;
let csvParseSync: Promise<CsvParseSync> | undefined;
const loadFileType = () => (fileType ??= import('file-type'));
const loadCsvParseSync = () => (csvParseSync ??= import('csv-parse/sync'));

/** The bytes of a document its kind is told from: the uploader keeps only these. */
export const KIND_HEAD_BYTES = 64 * 1024;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Decodes the head as text (a BOM dropped; a character cut at the end of a partial head is left
 * out): UTF-8, or what text.ts reads bytes that are not UTF-8 as (Windows-1252), so one Latin-1
 * byte does not make a CSV `other`; null when the bytes are not text (NULs, control bytes).
 */
function textOf(bytes: Uint8Array, complete: boolean): string | null {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: !complete });
  } catch {
    text = decodeDocumentText(bytes).text;
    // binary data read as Windows-1252 is full of C0 controls; text has few or none
    const controls = text.match(/[\u0001-\u0008\u000e-\u001a\u001c-\u001f]/g)?.length ?? 0;
    if (controls > text.length / 100) return null;
  }
  if (text.includes('\u0000')) return null;
  return text.replace(/^\uFEFF/, '');
}

/** The kind of a parsed JSON document (or the members read from a head), or null when its members say nothing. */
function structuredKind(value: unknown): AttachmentKind | null {
  if (!isRecord(value)) return null;
  if (typeof value.openapi === 'string' || typeof value.swagger === 'string' || typeof value.swagger === 'number') return 'openapi';
  if (isRecord(value.document) && value.document.type === 'DOCUMENT') return 'figma';
  if (typeof value.$schema === 'string') return 'jsonschema';
  const schemaShaped =
    (value.type === 'object' && isRecord(value.properties)) || isRecord(value.$defs) || (isRecord(value.definitions) && !('paths' in value));
  return schemaShaped ? 'jsonschema' : null;
}

/**
 * The top-level members of a YAML head, from the lines that start at the first column
 * (`openapi: 3.0.0`, `$defs:`): a scalar value as written, a key whose value is on the
 * following (indented) lines or in braces as a record.
 */
function yamlTopLevel(head: string): Record<string, unknown> {
  const members: Record<string, unknown> = {};
  for (const match of head.matchAll(/^(["']?)([A-Za-z_$][\w$.-]*)\1[ \t]*:(?:[ \t]+([^\n#]*))?[ \t]*(?:#[^\n]*)?$/gm)) {
    const value = (match[3] ?? '').trim();
    members[match[2]!] = value === '' || value.startsWith('{') ? {} : value.replace(/^(["'])(.*)\1$/, '$2');
  }
  return members;
}

/** The members a partial JSON head names, with the values that tell a kind (each pattern within one line). */
function jsonHeadMembers(head: string): Record<string, unknown> {
  const members: Record<string, unknown> = {};
  const scalars: Array<[string, RegExp]> = [
    ['openapi', /"openapi"[ \t]*:[ \t]*"([^"\n]*)"/],
    ['swagger', /"swagger"[ \t]*:[ \t]*("[^"\n]*"|[0-9.]+)/],
    ['$schema', /"\$schema"[ \t]*:[ \t]*"([^"\n]*)"/],
    ['type', /"type"[ \t]*:[ \t]*"(object)"/],
  ];
  for (const [member, pattern] of scalars) {
    const value = pattern.exec(head)?.[1];
    if (value !== undefined) members[member] = /^[0-9.]+$/.test(value) ? Number(value) : value.replace(/^"|"$/g, '');
  }
  const records: Array<[string, RegExp]> = [
    ['properties', /"properties"[ \t]*:[ \t]*\{/],
    ['$defs', /"\$defs"[ \t]*:[ \t]*\{/],
    ['definitions', /"definitions"[ \t]*:[ \t]*\{/],
    ['paths', /"paths"[ \t]*:/],
  ];
  for (const [member, pattern] of records) if (pattern.test(head)) members[member] = {};
  if (/"type"[ \t]*:[ \t]*"DOCUMENT"/.test(head)) members.document = { type: 'DOCUMENT' };
  return members;
}

/** Lines starting a SQL table or enum type: `[ \t]*`, never `\s*`, so a head of blank lines cannot make the pattern backtrack across lines. */
const SQL_DDL = /^[ \t]*create[ \t\r\n]+(?:(?:global[ \t\r\n]+|local[ \t\r\n]+)?(?:temporary[ \t\r\n]+|temp[ \t\r\n]+|unlogged[ \t\r\n]+)?table|type[ \t\r\n]+\S+[ \t\r\n]+as[ \t\r\n]+enum)\b/im;
/**
 * Lines starting rows of a SQL data dump (`pg_dump --data-only`'s `COPY t (…) FROM stdin;`,
 * `INSERT INTO t …`, MySQL's multi-row `INSERT INTO \`t\` VALUES (…),(…)`): a data-only file is SQL too.
 */
const SQL_DATA = /^[ \t]*(?:insert[ \t]+(?:ignore[ \t]+)?into[ \t]+[`"\w.$]+[ \t\r\n]*(?:\(|values\b|select\b)|copy[ \t]+[\w."$]+[ \t]*(?:\([^)\n]*\)[ \t]*)?from[ \t]+stdin\b)/im;
const MARKDOWN = /^(?:#{1,6}[ \t]+\S|[ \t]*[-*+][ \t]+\S|[ \t]*\d+\.[ \t]+\S|\|.*\|[ \t]*\r?$|```)/m;

/** At least two columns, the same count on every line of the head, two lines or more. */
async function looksLikeCsv(head: string, delimiter: string, complete: boolean): Promise<boolean> {
  const lines = head.split(/\r?\n/).filter((line) => line.trim() !== '');
  if (lines.length < 2) return false;
  const { parse: parseCsv } = await loadCsvParseSync();
  // The last line of a head cut mid-file may be partial.
  const sample = lines.slice(0, Math.min(lines.length - (complete ? 0 : 1), 50)).join('\n');
  try {
    const rows = parseCsv(sample, { delimiter, relax_quotes: true, skip_empty_lines: true }) as string[][];
    return rows.length >= 2 && rows[0].length >= 2 && rows.every((row) => row.length === rows[0].length);
  } catch {
    return false;
  }
}

const extension = (name: string) => name.slice(name.lastIndexOf('.') + 1).toLowerCase();

/** The members of a JSON or YAML head: parsed when it is the whole JSON document, read from its lines otherwise. */
function structuredMembers(text: string, complete: boolean, jsonLike: boolean): unknown {
  if (jsonLike && complete) {
    try {
      return JSON.parse(text);
    } catch {
      // not JSON after all: perhaps YAML in braces
    }
  }
  return jsonLike ? jsonHeadMembers(text) : yamlTopLevel(text);
}

/**
 * The kind of a document from its head (at most its first KIND_HEAD_BYTES bytes are looked at);
 * `size` is the whole document's, when `bytes` is only its head.
 */
export async function detectKind(bytes: Uint8Array, name: string, contentType: string, size = bytes.length): Promise<AttachmentKind> {
  if (bytes.length === 0) return 'other';
  const head = bytes.subarray(0, KIND_HEAD_BYTES);
  const complete = size <= head.length;
  if (Buffer.from(head.subarray(0, 5)).toString('latin1') === '%PDF-') return 'pdf';
  const { fileTypeFromBuffer } = await loadFileType();
  const sniffed = await fileTypeFromBuffer(head.subarray(0, 4100));
  if (sniffed) return sniffed.mime === 'application/pdf' ? 'pdf' : sniffed.mime.startsWith('image/') ? 'image' : 'other';
  const text = textOf(head, complete);
  if (text === null) return 'other';
  if (/^\s*<svg[\s>]/i.test(text) || contentType === 'image/svg+xml') return 'image';

  const ext = extension(name);
  const trimmed = text.trimStart();
  const jsonLike = trimmed.startsWith('{') || trimmed.startsWith('[');
  if (jsonLike || ['json', 'yaml', 'yml'].includes(ext) || /^(openapi|swagger|\$schema)[ \t]*:/m.test(text)) {
    const kind = structuredKind(structuredMembers(text, complete, jsonLike));
    if (kind) return kind;
    if (jsonLike || ext === 'json') return 'text';
  }
  if ((SQL_DDL.test(text) || SQL_DATA.test(text)) && ext !== 'md' && ext !== 'markdown') return 'sql';
  if (ext === 'md' || ext === 'markdown' || contentType === 'text/markdown') return 'markdown';
  // a script named .sql whose head holds no table or rows yet (a long preamble) is still SQL
  if (ext === 'sql' || contentType === 'application/sql') return 'sql';
  if (ext === 'csv' || contentType === 'text/csv') return 'csv';
  if (ext === 'tsv' && (await looksLikeCsv(text, '\t', complete))) return 'csv';
  if (/^#{1,6}[ \t]+\S/m.test(text)) return 'markdown';
  if ((await looksLikeCsv(text, ',', complete)) || (await looksLikeCsv(text, ';', complete))) return 'csv';
  if (MARKDOWN.test(text)) return 'markdown';
  return 'text';
}
