/**
 * A SQL document as an import reads it, through the statement splitter and table readers the
 * specification extractors use (specifications/extractors/): the tables it defines (their
 * columns in order, keys and foreign keys) and, per table, where its rows are (`COPY … FROM
 * stdin` blocks and `INSERT` statements). The document is split once; rows are read table by
 * table later, in the order foreign keys need.
 *
 * This module is the one adapter between imports and the extractors' SQL modules, so a change
 * of their exports is met here.
 */
import { loadPostgresParser, readPostgres } from '../specifications/extractors/sql-postgres.ts';
import { readMysql } from '../specifications/extractors/sql-mysql.ts';
import { boundStatements, splitStatements } from '../specifications/extractors/sql-statements.ts';
import type { SqlTable } from '../specifications/extractors/sql-tables.ts';
import { copyFields, copyHeader, insertRows, SqlValueError, type SourceValue } from './sql-rows.ts';

export type { SqlTable };
export type SqlDialect = 'postgresql' | 'mysql';

/** Backticks, `ENGINE=` or MySQL's escapes say MySQL; otherwise PostgreSQL. */
export function sniffDialect(text: string): SqlDialect {
  const head = text.slice(0, 200_000);
  return /`\w+`|\bENGINE\s*=|\bAUTO_INCREMENT\b|\/\*!\d{5}/i.test(head) ? 'mysql' : 'postgresql';
}

/** Where one table's rows are in the document. */
export type RowSegment =
  | { kind: 'copy'; columns: string[] | null; start: number; end: number; line: number }
  | { kind: 'insert'; start: number; end: number; line: number };

export interface SqlDocument {
  text: string;
  dialect: SqlDialect;
  /** Tables the document defines (CREATE TABLE), partitions folded into their parent. */
  tables: SqlTable[];
  /** partition → parent, from `PARTITION OF` and `ATTACH PARTITION`. */
  partitionOf: Map<string, string>;
  /** Per table name as written in the data statements: its row segments, in document order. */
  segments: Map<string, RowSegment[]>;
}

type QuerySplitter = typeof import('dbgate-query-splitter');
let splitter: Promise<QuerySplitter> | undefined;
function querySplitter(): Promise<QuerySplitter> {
  splitter ??= import('dbgate-query-splitter');
  return splitter;
}

const PARTITION_OF = /create\s+table\s+(?:if\s+not\s+exists\s+)?(?:[\w$"]+\.)?"?([\w$]+)"?\s+partition\s+of\s+(?:[\w$"]+\.)?"?([\w$]+)"?/gi;
const ATTACH_PARTITION = /alter\s+table\s+(?:only\s+)?(?:[\w$"]+\.)?"?([\w$]+)"?\s+attach\s+partition\s+(?:[\w$"]+\.)?"?([\w$]+)"?/gi;

function partitionsOf(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(PARTITION_OF)) out.set(m[1]!, m[2]!);
  for (const m of text.matchAll(ATTACH_PARTITION)) out.set(m[2]!, m[1]!);
  return out;
}

const CREATES_TABLE = /\bcreate\s+(?:temporary\s+|temp\s+|unlogged\s+)?table\b/i;

/** The tables a document defines, read as the SQL extractor reads them (PostgreSQL first, then MySQL). */
async function tablesOf(text: string, dialect: SqlDialect): Promise<SqlTable[]> {
  if (!CREATES_TABLE.test(text)) return [];
  if (dialect === 'postgresql') {
    await loadPostgresParser();
    const read = readPostgres(boundStatements(await splitStatements(text, 'postgresql')).statements);
    if (read.tables.length > 0) return read.tables;
  }
  return (await readMysql(boundStatements(await splitStatements(text, 'mysql')).statements)).tables;
}

/** Splits the document once: its tables, and where each table's rows are. */
export async function readSqlDocument(text: string): Promise<SqlDocument> {
  const dialect = sniffDialect(text);
  const { mysqlSplitterOptions, postgreSplitterOptions, splitQuery } = await querySplitter();
  const options = dialect === 'mysql' ? mysqlSplitterOptions : postgreSplitterOptions;
  const items = splitQuery(text, { ...options, returnRichInfo: true, copyFromStdin: dialect === 'postgresql' });
  const segments = new Map<string, RowSegment[]>();
  const add = (table: string, segment: RowSegment) => {
    const list = segments.get(table) ?? [];
    list.push(segment);
    segments.set(table, list);
  };
  let copy: { table: string; columns: string[] | null; line: number; start: number; end: number } | undefined;
  for (const item of items) {
    if (typeof item === 'string') continue;
    const marker = item.specialMarker;
    if (marker === 'copy_stdin_line') {
      if (copy) {
        if (copy.start < 0) copy.start = item.start.position;
        copy.end = item.end.position;
      }
      continue;
    }
    if (marker === 'copy_stdin_end') {
      if (copy && copy.start >= 0) add(copy.table, { kind: 'copy', columns: copy.columns, start: copy.start, end: copy.end, line: copy.line });
      copy = undefined;
      continue;
    }
    const start = (item.trimStart ?? item.start).position;
    const head = text.slice(start, start + 2000);
    const body = head.replace(/^(?:\s*(?:--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/))*\s*/, '');
    const line = (item.trimStart ?? item.start).line + 1;
    if (/^copy\s/i.test(body)) {
      const header = copyHeader(body);
      if (header) copy = { table: header.table, columns: header.columns, line, start: -1, end: -1 };
    } else if (/^insert\s/i.test(body)) {
      const target = /^insert\s+(?:(?:ignore|low_priority|delayed|high_priority)\s+)*into\s+((?:"(?:[^"]|"")+"|`(?:[^`]|``)+`|\[[^\]]+\]|[\w$]+)(?:\s*\.\s*(?:"(?:[^"]|"")+"|`(?:[^`]|``)+`|\[[^\]]+\]|[\w$]+))*)/i.exec(body);
      if (target) {
        const parts = target[1]!.match(/"(?:[^"]|"")+"|`(?:[^`]|``)+`|\[[^\]]+\]|[^.\s]+/g)!;
        const last = parts[parts.length - 1]!;
        const name = /^["`[]/.test(last) ? last.slice(1, -1) : last;
        add(name, { kind: 'insert', start: item.start.position, end: item.end.position, line });
      }
    }
  }
  return { text, dialect, tables: await tablesOf(text, dialect), partitionOf: partitionsOf(text), segments };
}

/** One row as read: its values in `columns` order, and the line it starts on. */
export interface SourceRow {
  columns: string[];
  values: SourceValue[];
  line: number;
  /** Spreadsheet cells (CSV): a missing-value marker (`NA`, `-`, empty) is no value (values.ts). */
  cells?: boolean;
  /** Set when the row could not be read at all (a JSON line that is no object): reported as rejected. */
  unreadable?: string;
}

/** A row the reader could not read at all (an INSERT of a function call): reported, not imported. */
export interface UnreadableRows {
  line: number;
  message: string;
}

/** The rows of one segment; `tableColumns` names the values of an INSERT or COPY without a column list. */
export function* segmentRows(doc: SqlDocument, segment: RowSegment, tableColumns: string[], unreadable: (problem: UnreadableRows) => void): Generator<SourceRow> {
  const text = doc.text.slice(segment.start, segment.end);
  if (segment.kind === 'copy') {
    const columns = segment.columns ?? tableColumns;
    let line = segment.line + 1;
    let at = 0;
    while (at < text.length) {
      let end = text.indexOf('\n', at);
      if (end < 0) end = text.length;
      const raw = text.slice(at, end);
      at = end + 1;
      if (raw.length > 0 && raw !== '\\.') yield { columns, values: copyFields(raw), line };
      line += 1;
    }
    return;
  }
  try {
    const read = insertRows(text, doc.dialect === 'mysql');
    if (!read) return;
    const columns = read.columns ?? tableColumns;
    for (const values of read.rows) {
      // positional values must fill the table's columns exactly, as the database loading the dump requires
      if (!read.columns && tableColumns.length > 0 && values.length !== tableColumns.length) {
        yield { columns, values: [], line: segment.line, unreadable: `has ${values.length} values where the table ${read.table} has ${tableColumns.length} columns (the data does not match the schema)` };
      } else yield { columns, values, line: segment.line };
    }
  } catch (error) {
    if (!(error instanceof SqlValueError)) throw error;
    unreadable({ line: segment.line, message: `the INSERT statement could not be read: ${error.message}` });
  }
}
