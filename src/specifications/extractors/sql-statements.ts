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

export interface StatementsRead {
  tables: SqlTable[];
  /** Statements the dialect's parser rejected. */
  rejected: SqlStatement[];
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
  const { mysqlSplitterOptions, postgreSplitterOptions, splitQuery } = await querySplitter();
  const options = dialect === 'mysql' ? mysqlSplitterOptions : postgreSplitterOptions;
  const items = splitQuery(text, { ...options, returnRichInfo: true, copyFromStdin: dialect === 'postgresql' });
  const statements: SqlStatement[] = [];
  for (const item of items) {
    if (typeof item === 'string') {
      statements.push({ text: item, line: 0 });
      continue;
    }
    // COPY's data lines are rows, not statements
    if (item.specialMarker === 'copy_stdin_line' || item.specialMarker === 'copy_stdin_end') continue;
    const start = item.trimStart ?? item.start;
    // the splitter keeps comments before a statement (pg_dump's `-- Name: film; Type: TABLE`):
    // the locator points at the statement itself
    const leading = /^(?:\s*(?:--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/))*\s*/.exec(item.text)?.[0] ?? '';
    const skippedLines = leading.split('\n').length - 1;
    statements.push({ text: item.text, line: start.line + 1 + skippedLines });
  }
  return statements;
}

export const CREATE_TABLE = /^\s*(?:--[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*create\s+(?:temporary\s+|temp\s+|unlogged\s+)?table\b/i;

/**
 * The statements worth parsing, bounded before any is parsed: a script of more statements than
 * the limit is refused, and so is a CREATE TABLE longer than the statement limit (1,000 columns
 * take ~30,000 characters; the parser takes seconds on a few hundred thousand). Any other
 * statement that long (a bulk INSERT) describes no table: it is not parsed, only counted.
 */
export function boundStatements(statements: SqlStatement[]): { statements: SqlStatement[]; unparsed: number } {
  if (statements.length > DOCUMENT_LIMITS.sqlStatements) {
    throw pastLimit(`the script has ${formatCount(statements.length)} statements`, DOCUMENT_LIMITS.sqlStatements, 'statements');
  }
  const kept: SqlStatement[] = [];
  let unparsed = 0;
  for (const statement of statements) {
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
  return { statements: kept, unparsed };
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
