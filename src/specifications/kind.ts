/**
 * What an attachment is, read from its content (DESIGN §13): the file name and the declared
 * type only break ties between text formats. Binary formats by their magic bytes (`file-type`),
 * JSON and YAML documents by their members (parsed with `yaml`, which reads JSON too), CSV by
 * parsing its first lines (`csv-parse`).
 */
import type { AttachmentKind } from './extractors/types.ts';

// Each imported on first use: only an attachment's upload tells its kind (issue 28).
type FileType = typeof import('file-type');
type CsvParseSync = typeof import('csv-parse/sync');
type Yaml = typeof import('yaml');
let fileType: Promise<FileType> | undefined;
let csvParseSync: Promise<CsvParseSync> | undefined;
let yaml: Promise<Yaml> | undefined;
const loadFileType = () => (fileType ??= import('file-type'));
const loadCsvParseSync = () => (csvParseSync ??= import('csv-parse/sync'));
const loadYaml = () => (yaml ??= import('yaml'));

/** Enough of a text document to tell its kind; a longer one is judged by its beginning (YAML and JSON are parsed whole). */
const HEAD_CHARS = 64 * 1024;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Decodes UTF-8 (a BOM dropped); null when the bytes are not text. */
function textOf(bytes: Uint8Array): string | null {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
  if (text.includes('\u0000')) return null;
  return text.replace(/^\uFEFF/, '');
}

/** The kind of a parsed JSON or YAML document, or null when its members say nothing. */
function structuredKind(value: unknown): AttachmentKind | null {
  if (!isRecord(value)) return null;
  if (typeof value.openapi === 'string' || typeof value.swagger === 'string' || typeof value.swagger === 'number') return 'openapi';
  if (isRecord(value.document) && value.document.type === 'DOCUMENT') return 'figma';
  if (typeof value.$schema === 'string') return 'jsonschema';
  const schemaShaped =
    (value.type === 'object' && isRecord(value.properties)) || isRecord(value.$defs) || (isRecord(value.definitions) && !('paths' in value));
  return schemaShaped ? 'jsonschema' : null;
}

/** Past this a YAML document is judged by its top-level keys: parsing 25 MiB of YAML takes seconds. */
const YAML_PARSE_MAX_CHARS = 2 * 1024 * 1024;

/** JSON by `JSON.parse` (fast at any size); YAML (and JSON it refuses) by `yaml`, up to a size. */
async function parseStructured(text: string): Promise<unknown> {
  try {
    return JSON.parse(text);
  } catch {
    // not JSON: perhaps YAML
  }
  if (text.length > YAML_PARSE_MAX_CHARS) return topLevelKeys(text);
  const { parse: parseYaml } = await loadYaml();
  try {
    return parseYaml(text, { maxAliasCount: 100, prettyErrors: false });
  } catch {
    return undefined;
  }
}

/** The members a large YAML document starts lines with (`openapi: 3.0.0`), as an object of their values. */
function topLevelKeys(text: string): Record<string, unknown> {
  const keys: Record<string, unknown> = {};
  for (const match of text.slice(0, HEAD_CHARS).matchAll(/^(openapi|swagger|\$schema)\s*:\s*['"]?([^'"\s#]+)/gm)) keys[match[1]] = match[2];
  return keys;
}

const SQL_DDL = /^\s*create\s+(?:(?:global\s+|local\s+)?(?:temporary\s+|temp\s+|unlogged\s+)?table|type\s+\S+\s+as\s+enum)\b/im;
const MARKDOWN = /^(?:#{1,6}\s+\S|\s*[-*+]\s+\S.*$|\s*\d+\.\s+\S|\|.*\|\s*$|```)/m;

/** At least two columns, the same count on every line of the head, two lines or more. */
async function looksLikeCsv(head: string, delimiter: string): Promise<boolean> {
  const lines = head.split(/\r?\n/).filter((line) => line.trim() !== '');
  if (lines.length < 2) return false;
  const { parse: parseCsv } = await loadCsvParseSync();
  // The last line of a head cut mid-file may be partial.
  const sample = lines.slice(0, Math.min(lines.length - (head.length >= HEAD_CHARS ? 1 : 0), 50)).join('\n');
  try {
    const rows = parseCsv(sample, { delimiter, relax_quotes: true, skip_empty_lines: true }) as string[][];
    return rows.length >= 2 && rows[0].length >= 2 && rows.every((row) => row.length === rows[0].length);
  } catch {
    return false;
  }
}

const extension = (name: string) => name.slice(name.lastIndexOf('.') + 1).toLowerCase();

export async function detectKind(bytes: Uint8Array, name: string, contentType: string): Promise<AttachmentKind> {
  if (bytes.length === 0) return 'other';
  const head = bytes.subarray(0, 5);
  if (Buffer.from(head).toString('latin1') === '%PDF-') return 'pdf';
  const { fileTypeFromBuffer } = await loadFileType();
  const sniffed = await fileTypeFromBuffer(bytes.subarray(0, 4100));
  if (sniffed) return sniffed.mime === 'application/pdf' ? 'pdf' : sniffed.mime.startsWith('image/') ? 'image' : 'other';
  const text = textOf(bytes);
  if (text === null) return 'other';
  if (/^\s*<svg[\s>]/i.test(text) || contentType === 'image/svg+xml') return 'image';

  const ext = extension(name);
  const trimmed = text.trimStart();
  const jsonLike = trimmed.startsWith('{') || trimmed.startsWith('[');
  if (jsonLike || ['json', 'yaml', 'yml'].includes(ext) || /^(openapi|swagger|\$schema)\s*:/m.test(text.slice(0, HEAD_CHARS))) {
    const kind = structuredKind(await parseStructured(text));
    if (kind) return kind;
    if (jsonLike || ext === 'json') return 'text';
  }
  const start = text.slice(0, HEAD_CHARS);
  if (SQL_DDL.test(start) && ext !== 'md' && ext !== 'markdown') return 'sql';
  if (ext === 'md' || ext === 'markdown' || contentType === 'text/markdown') return 'markdown';
  if (ext === 'csv' || contentType === 'text/csv') return 'csv';
  if (ext === 'tsv' && (await looksLikeCsv(start, '\t'))) return 'csv';
  if (/^#{1,6}\s+\S/m.test(start)) return 'markdown';
  if ((await looksLikeCsv(start, ',')) || (await looksLikeCsv(start, ';'))) return 'csv';
  if (MARKDOWN.test(start)) return 'markdown';
  return 'text';
}
