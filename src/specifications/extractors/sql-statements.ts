/**
 * SQL scripts cut into statements the way the database's own client does (dbgate's
 * splitter: quotes, comments, `$$` bodies, MySQL `DELIMITER`, psql `COPY … FROM stdin`
 * data), so each statement is parsed on its own and one the parser rejects costs only
 * itself. Line numbers are kept for locators.
 */
import type { SqlTable } from './sql-tables.ts';

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
