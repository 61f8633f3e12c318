/**
 * SQL scripts cut into statements the way the database's own client does (dbgate's
 * splitter: quotes, comments, `$$` bodies, MySQL `DELIMITER`, psql `COPY … FROM stdin`
 * data), so each statement is parsed on its own and one the parser rejects costs only
 * itself. Line numbers are kept for locators.
 */
import type { SqlTable } from './sql-tables.ts';
import { DOCUMENT_LIMITS, formatCount, pastLimit } from '../limits.ts';
import { ExtractionError } from './types.ts';

export interface SqlStatement {
  text: string;
  /** 1-based line where the statement starts. */
  line: number;
}

/** A statement with, for `COPY … FROM stdin`, the data lines that follow it (up to `\.`). */
export interface SqlStatementWithData extends SqlStatement {
  /** The rows of a `COPY … FROM stdin` block as written (tab-separated, `\N` for null), without their line ends, and the line of the first. */
  copyData?: { line: number; rows: string[] };
}

export interface StatementsRead {
  tables: SqlTable[];
  /** Statements the dialect's parser rejected, with the parser's reason when it gives one. */
  rejected: Array<SqlStatement & { reason?: string }>;
  /** The partitions' names, in the order read. */
  partitionNames: string[];
  /** Each partition's parent table (`payment_p2022_01` → `payment`): where a partition's rows belong. */
  partitionParents: Record<string, string>;
  /** Tables a later CREATE TABLE of the same name replaced. */
  replaced: SqlTable[];
  /** Storage attributes the grammar does not read, cut out of a statement so the rest of it is read. */
  attributesCut: Array<{ line: number; attributes: string[] }>;
  /** Parsed statements that describe nothing a model needs (functions, grants, views…). */
  ignored: number;
  /** Partitions folded into their parent table. */
  partitions: number;
}

// Imported on first use: only a SQL attachment's extraction splits statements (issue 28).
type QuerySplitter = typeof import('dbgate-query-splitter');
let splitter: Promise<QuerySplitter> | undefined;
function querySplitter(): Promise<QuerySplitter> {
  splitter ??= import('dbgate-query-splitter');
  return splitter;
}

export async function splitStatements(text: string, dialect: 'postgresql' | 'mysql'): Promise<SqlStatement[]> {
  // COPY's data lines are rows, not statements: left out here
  return (await splitSqlStatements(text, dialect, false)).map(({ text: statementText, line }) => ({ text: statementText, line }));
}

/**
 * A script cut into statements, in one pass over the text (linear in its length: a 3 MB dump
 * splits in ~150 ms). With `withCopyData` each `COPY … FROM stdin` statement carries the data
 * lines that follow it up to `\.`, for a reader of the rows (the data import); the statements'
 * own lines are where each starts, past the comments before it.
 */
export async function splitSqlStatements(text: string, dialect: 'postgresql' | 'mysql', withCopyData = true): Promise<SqlStatementWithData[]> {
  const { mysqlSplitterOptions, postgreSplitterOptions, splitQuery } = await querySplitter();
  const options = dialect === 'mysql' ? mysqlSplitterOptions : postgreSplitterOptions;
  const items = splitQuery(text, { ...options, returnRichInfo: true, copyFromStdin: dialect === 'postgresql' });
  const statements: SqlStatementWithData[] = [];
  let copying: SqlStatementWithData | undefined;
  for (const item of items) {
    if (typeof item === 'string') {
      statements.push({ text: item, line: 0 });
      continue;
    }
    if (item.specialMarker === 'copy_stdin_line') {
      if (withCopyData && copying) {
        copying.copyData ??= { line: item.start.line + 1, rows: [] };
        copying.copyData.rows.push(item.text.replace(/\r?\n$/, ''));
      }
      continue;
    }
    if (item.specialMarker === 'copy_stdin_end') {
      if (withCopyData && copying) copying.copyData ??= { line: item.start.line + 1, rows: [] };
      copying = undefined;
      continue;
    }
    const start = item.trimStart ?? item.start;
    // the splitter keeps comments before a statement (pg_dump's `-- Name: film; Type: TABLE`):
    // the locator points at the statement itself
    const leading = /^(?:\s*(?:--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/))*\s*/.exec(item.text)?.[0] ?? '';
    const skippedLines = leading.split('\n').length - 1;
    // the text starts at the statement too (a MySQL version comment `/*!40101 …*/` is the statement, kept)
    const plainLeading = /^(?:\s*(?:--[^\n]*(?:\n|$)|\/\*(?!!)[\s\S]*?\*\/))*\s*/.exec(item.text)?.[0] ?? '';
    // nothing but comments (pg_dump's closing `-- PostgreSQL database dump complete`): no statement
    if (plainLeading.length === item.text.length) continue;
    const statement: SqlStatementWithData = { text: item.text.slice(plainLeading.length), line: start.line + 1 + skippedLines };
    statements.push(statement);
    copying = item.specialMarker === 'copy_stdin_start' ? statement : undefined;
  }
  return statements;
}

/** Rows, not structure: `INSERT INTO t …`, `REPLACE INTO t …`, `COPY t … FROM stdin`. */
export const DATA_STATEMENT = /^\s*(?:--[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*(?:insert\s+(?:ignore\s+)?into|replace\s+into|copy)\s+((?:`[^`]+`|"[^"]+"|[\w$]+)(?:\.(?:`[^`]+`|"[^"]+"|[\w$]+))?)/i;

/** The table a data statement fills, without schema or quotes (`public.actor` → `actor`); undefined for any other statement. */
export function dataTable(text: string): string | undefined {
  const name = DATA_STATEMENT.exec(text.slice(0, 4096))?.[1];
  if (!name) return undefined;
  const last = name.slice(name.search(/[^.]*$/));
  return last.replace(/^[`"]|[`"]$/g, '');
}

export const CREATE_TABLE = /^\s*(?:--[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*create\s+(?:temporary\s+|temp\s+|unlogged\s+)?table\b/i;

/**
 * The statements worth parsing, bounded before any is parsed: a script of more statements than
 * the limit is refused, and so is a CREATE TABLE longer than the statement limit (1,000 columns
 * take ~30,000 characters; the parser takes seconds on a few hundred thousand). Any other
 * statement that long (a bulk INSERT) describes no table: it is not parsed, only counted.
 */
export function boundStatements(statements: SqlStatement[]): { statements: SqlStatement[]; unparsed: number; data: Map<string, number> } {
  // Rows are not parsed (they describe no table), so they do not count against the statement limit.
  const data = new Map<string, number>();
  const structure: SqlStatement[] = [];
  for (const statement of statements) {
    const table = dataTable(statement.text);
    if (table === undefined) structure.push(statement);
    else data.set(table, (data.get(table) ?? 0) + 1);
  }
  if (structure.length > DOCUMENT_LIMITS.sqlStatements) {
    throw pastLimit(`the script has ${formatCount(structure.length)} statements`, DOCUMENT_LIMITS.sqlStatements, 'statements');
  }
  const kept: SqlStatement[] = [];
  let unparsed = 0;
  for (const statement of structure) {
    if (statement.text.length <= DOCUMENT_LIMITS.sqlStatementChars) kept.push(statement);
    else if (!CREATE_TABLE.test(statement.text)) unparsed += 1;
    else {
      throw pastLimit(
        `the CREATE TABLE statement at line ${statement.line} is ${formatCount(statement.text.length)} characters long`,
        DOCUMENT_LIMITS.sqlStatementChars,
        'characters per statement',
      );
    }
  }
  return { statements: kept, unparsed, data };
}

/** Refuses a table of more columns than a model may have, or one table more than a definition may have, as soon as its statement is read. */
export function checkTable(table: SqlTable, tablesBefore: number): void {
  if (tablesBefore >= DOCUMENT_LIMITS.models) {
    throw new ExtractionError(`the script defines more tables than the limit of ${formatCount(DOCUMENT_LIMITS.models)} (at line ${table.line})`);
  }
  if (table.columns.length > DOCUMENT_LIMITS.columns) {
    throw pastLimit(`table ${table.name} has ${formatCount(table.columns.length)} columns`, DOCUMENT_LIMITS.columns, 'columns per table');
  }
}
