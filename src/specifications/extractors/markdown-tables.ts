/**
 * Entity tables in a Markdown document (DESIGN §13): a table with a field-name column and
 * a type column, under a heading naming the entity ("## Table: `users`", "### Book"),
 * becomes a draft model. A constraints or required column gives `required`, defaults,
 * enums and foreign keys (→ a relationship to the named table).
 */
import type { PrimitiveType } from '../../definition/schema.ts';
import type { DraftField, DraftModel, DraftWarning, Locator } from './types.ts';

const FIELD_HEADER = /^(?:field|field\s*name|column|column\s*name|attribute|property|name)$/i;
const TYPE_HEADER = /^(?:type|data\s*type|datatype|field\s*type|format)$/i;
const REQUIRED_HEADER = /^(?:required|mandatory|nullable|null|optional|presence|requirement|cardinality)$/i;
const DESCRIPTION_HEADER = /^(?:description|values?|allowed\s+values|details|meaning|notes?)$/i;
const CONSTRAINT_HEADER = /constraint|rule|key|notes?$/i;

/** Type words as schema tables write them, checked in order (first match wins). */
const TYPE_WORDS: [RegExp, PrimitiveType][] = [
  // codes and zones written as words ("Currency code", "Timezone") are text, not amounts or times
  [/\bphone\b/i, 'p_PHONE_NUMBER'],
  [/\b(?:currency\s+code|language\s+code|country\s+code|time\s*zone|colou?r)\b/i, 'p_TEXT'],
  [/\b(?:currency\s+amount|amount)\b/i, 'p_CURRENCY_AMOUNT'],
  [/\b(?:latitude|longitude|non-negative|positive|non-zero)\b/i, 'p_NUMBER'],
  [/\b(?:timestamp|timestamptz|date\s*time|datetime|instant)\b/i, 'p_DATE_TIME'],
  [/\bdate\b/i, 'p_DATE'],
  [/\btime\b/i, 'p_TIME'],
  [/\b(?:bool|boolean)\b/i, 'p_BOOLEAN'],
  [/\b(?:int|integer|bigint|smallint|serial|bigserial|number|numeric|decimal|float|double|real)\b/i, 'p_NUMBER'],
  [/\b(?:money|currency|price)\b/i, 'p_CURRENCY_AMOUNT'],
  [/\b(?:url|uri|link)\b/i, 'p_LINK'],
  [/\b(?:phone|telephone)\b/i, 'p_PHONE_NUMBER'],
  [/\b(?:image|photo|picture)\b/i, 'p_IMAGE'],
  [/\b(?:file|attachment|blob)\b/i, 'p_FILE'],
  [/\b(?:text|string|varchar|char|uuid|email|enum|citext|id|identifier|code)\b/i, 'p_TEXT'],
];

export interface TableRow {
  cells: string[];
  line: number;
}

export interface EntityTable {
  /** Headings above the table, nearest first. */
  headings: string[];
  header: string[];
  rows: TableRow[];
  line: number;
}

/** Backticks and bold markers around a name (`created_at`); underscores are part of names. */
function unquote(text: string): string {
  return text.replace(/[`*]/g, '').trim();
}

/** Headings that say what a table is, not which entity: look further up for the name. */
const GENERIC_HEADING = /^(?:(?:required|optional|core|key|main|other|additional)\s+)?(?:fields|columns|attributes|properties|parameters|schema|data\s*model|structure|definition)$/i;

/** "📄 Table: `users`" → "users"; "Entity: Book" → "Book". */
export function entityName(heading: string): string {
  const words = heading
    .replace(/[`*]/g, '')
    .replace(/^[^\p{L}\p{N}]+/u, '')
    .replace(/^(?:\d+(?:\.\d+)*\.?\s+)/, '')
    .replace(/^(?:table|entity|model|collection|resource|file)\s*[:\-–—]?\s*/i, '')
    .replace(/\s+(?:table|entity|model|schema)$/i, '')
    .trim()
    // a data standard names its sections after files: `stops.txt` is the entity `stops`
    .replace(/^([\w-]+)\.(?:txt|csv|tsv|json|geojson|xml|parquet|ya?ml)$/i, '$1');
  return words;
}

/** Values written in backticks or quotes: `admin`, 'user', "guest". */
function quotedValues(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`|'([^']+)'|"([^"]+)"/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** An enum's values as a reference manual lists them: "`0` (or empty) - Stop. `1` - Station." */
function listedValues(description: string): string[] {
  const values: string[] = [];
  for (const m of description.matchAll(/`([^`]+)`\s*(?:\(or empty\)|or empty)?\s*[-–—:]\s/g)) {
    if (!values.includes(m[1])) values.push(m[1]);
  }
  return values;
}

function typeOf(text: string): PrimitiveType | undefined {
  return TYPE_WORDS.find(([pattern]) => pattern.test(text))?.[1];
}

function columnIndex(header: string[], pattern: RegExp): number {
  return header.findIndex((cell) => pattern.test(unquote(cell)));
}

export function isEntityTable(header: string[]): boolean {
  return columnIndex(header, FIELD_HEADER) >= 0 && columnIndex(header, TYPE_HEADER) >= 0;
}

function literal(text: string): unknown {
  const quoted = quotedValues(text);
  if (quoted.length > 0) return quoted[0];
  if (/^(true|false)$/i.test(text)) return text.toLowerCase() === 'true';
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return undefined;
}

/**
 * The table a foreign key names: `references users(id)` and `→ public.users (id)` name the
 * table before the column list; `FK → user.user_id` and `references users.id` write
 * table.column.
 */
function referencedTable(constraints: string): string | undefined {
  const withColumns = /(?:→|->|references|to)\s*`?([A-Za-z_][\w.]*?)`?\s*\(/i.exec(constraints);
  if (withColumns) return withColumns[1].replace(/^.*\./, '');
  const dotted = /(?:→|->|references|to)\s*`?([A-Za-z_][\w.]*)`?/i.exec(constraints);
  if (!dotted) return undefined;
  const parts = dotted[1].split('.').filter(Boolean);
  return parts.length >= 2 ? parts[parts.length - 2] : parts[0];
}

/**
 * The part of a type or constraint naming allowed values: from the enum / CHECK / "one of"
 * keyword, its parenthesised list when it has one (a quoted DEFAULT after it is no value).
 */
function enumValuesText(text: string): string {
  const at = text.search(/\benum\b|\bcheck\b|\bone of\b/i);
  const rest = at >= 0 ? text.slice(at) : text;
  const open = rest.indexOf('(');
  if (open < 0) return rest;
  let depth = 0;
  for (let i = open; i < rest.length; i++) {
    if (rest[i] === '(') depth += 1;
    else if (rest[i] === ')' && --depth === 0) return rest.slice(open, i + 1);
  }
  return rest.slice(open);
}

function rowToField(
  table: EntityTable,
  row: TableRow,
  warnings: DraftWarning[],
  locate: (line: number) => Locator,
): DraftField | undefined {
  const at = (pattern: RegExp) => {
    const i = columnIndex(table.header, pattern);
    return i >= 0 ? (row.cells[i] ?? '').trim() : '';
  };
  const locator = locate(row.line);
  // nested members are written indented with `&nbsp;` and a dash ("&nbsp;&nbsp;-&nbsp;type")
  const name = unquote(at(FIELD_HEADER).replace(/&nbsp;|\u00a0/g, ' ')).replace(/^[-\s]+/, '').split(/\s+/)[0] ?? '';
  if (!name) return undefined;
  const typeText = at(TYPE_HEADER);
  const constraints = at(CONSTRAINT_HEADER);
  const requiredText = at(REQUIRED_HEADER);
  const requiredHeader = unquote(table.header[columnIndex(table.header, REQUIRED_HEADER)] ?? '');
  // "Foreign ID referencing `stops.stop_id`" (a reference manual's type column) names its table too
  const referencing = /\breferenc(?:ing|es)\s+`?([A-Za-z_][\w.]*)`?/i.exec(typeText);
  // "`id` from `locations.geojson`": the file names the table
  const fromFile = /\bfrom\s+`?([A-Za-z_][\w-]*)\.[a-z]+`?/i.exec(typeText)?.[1];
  const referenced = referencing?.[1].split('.').filter(Boolean) ?? [];
  const foreign = referencing
    ? (referenced.length >= 2 ? referenced[referenced.length - 2] : fromFile)
    : /foreign\s*key|references|\bfk\b|→|->/i.test(constraints) ? referencedTable(constraints) : undefined;
  if (!foreign && /\bforeign\s+id\b/i.test(typeText)) {
    warnings.push({ locator, message: `"${name}" is a foreign ID that names no table: kept as text` });
  }
  // An id-like primary key ("id", "api_key_id") that references nothing is the record's own id.
  if (/primary\s*key|\bpk\b/i.test(constraints) && !foreign && /^id$|_id$|[a-z]Id$/.test(name)) {
    warnings.push({ locator, message: `"${name}" is the primary key: every record has its own id, so it is not a field` });
    return undefined;
  }
  const field: DraftField = {
    name,
    type: foreign ? { model: foreign } : (typeOf(typeText) ?? 'p_TEXT'),
    many: /\[\]|\barray\b|\blist\b/i.test(typeText),
    required: false,
    locator,
  };
  if (!foreign && !typeOf(typeText)) {
    warnings.push({ locator, message: `type "${typeText || '(none)'}" of "${name}" is not one we know: read as text` });
  }
  // "Conditionally required" is not always required: optional, like "Optional"
  const yes = /^(?:yes|y|true|✓|✔|x|required|mandatory|1|1\.\.1|1\.\.n)$/i.test(requiredText);
  if (/\bunique\b/i.test(typeText) || /\bunique\b/i.test(constraints)) field.unique = true;
  if (requiredText) field.required = /^(?:nullable|null|optional)$/i.test(requiredHeader) ? !yes : yes;
  if (/not\s+null|\brequired\b|primary\s*key/i.test(constraints)) field.required = true;
  if (/\bnullable\b|\boptional\b/i.test(constraints) && !/not\s+null/i.test(constraints)) field.required = false;
  const enumSource = /\benum\b|\bcheck\b|\bone of\b/i.test(typeText) ? typeText : /\bcheck\b|\bone of\b|\benum\b/i.test(constraints) ? constraints : '';
  if (enumSource) {
    const values = quotedValues(enumValuesText(enumSource));
    if (values.length >= 2) field.enum = values;
  }
  if (!field.enum && /^enum(?:eration)?$/i.test(typeText.trim())) {
    const values = listedValues(at(DESCRIPTION_HEADER));
    if (values.length >= 2) {
      const numbers = values.every((v) => /^-?\d+$/.test(v));
      field.enum = numbers ? values.map(Number) : values;
      if (numbers) field.type = 'p_NUMBER';
    } else {
      warnings.push({ locator, message: `"${name}" is an enum whose values the description does not list as \`value\` - meaning: read as text` });
    }
  }
  const defaultMatch = /\bdefault\s*:?\s*('[^']*'|"[^"]*"|`[^`]*`|[\w.-]+(?:\(\))?)/i.exec(constraints);
  if (defaultMatch) {
    const value = literal(defaultMatch[1]);
    if (value !== undefined) field.defaultValue = value;
    else warnings.push({ locator, message: `default ${defaultMatch[1]} of "${name}" is computed by the database: not kept` });
  }
  return field;
}

/** Entity tables → draft models; a table under no usable heading is skipped with a warning. */
export function tablesToModels(
  tables: EntityTable[],
  warnings: DraftWarning[],
  locate: (line: number) => Locator,
): DraftModel[] {
  const models: DraftModel[] = [];
  const conditional: string[] = [];
  for (const table of tables) {
    const name = table.headings.map(entityName).find((n) => n && !GENERIC_HEADING.test(n)) ?? '';
    if (!name) {
      warnings.push({ locator: locate(table.line), message: 'a table of fields under no heading naming its entity: skipped' });
      continue;
    }
    const fields = table.rows
      .map((row) => rowToField(table, row, warnings, locate))
      .filter((f): f is DraftField => f !== undefined);
    // "Conditionally Required": required only when the description's condition holds, so optional here, said once
    const presence = columnIndex(table.header, REQUIRED_HEADER);
    for (const row of table.rows) {
      const field = presence >= 0 && /\bconditionally\s+required\b/i.test(row.cells[presence] ?? '') ? fields.find((f) => f.locator === locate(row.line)) : undefined;
      if (field) conditional.push(`${name}.${field.name}`);
    }
    models.push({ name, fields, locator: locate(table.line) });
  }
  if (conditional.length > 0) {
    const shown = conditional.length > 20 ? `${conditional.slice(0, 20).join(', ')} and ${conditional.length - 20} more` : conditional.join(', ');
    warnings.push({ locator: 'document', message: `${conditional.length} conditionally required ${conditional.length === 1 ? 'field is' : 'fields are'} optional (required only when the condition its description gives holds): ${shown}` });
  }
  return models;
}
