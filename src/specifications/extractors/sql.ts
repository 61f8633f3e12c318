/**
 * SQL DDL (DESIGN §13): PostgreSQL first (PostgreSQL's own parser), MySQL when the document
 * reads better as MySQL (backticks, `ENGINE=`, `ENUM(…)` columns PostgreSQL rejects).
 * Statements that describe no table (functions, triggers, views, grants, data) are skipped
 * and counted in one warning; statements neither parser accepts are listed by line. The script
 * is bounded before it is parsed (statements, their length) and each table as it is read
 * (columns): limits.ts.
 */
import pluralize from 'pluralize';
import { ExtractionError, emptyDraft } from './types.ts';
import type { Draft, Extractor } from './types.ts';
import { loadPostgresParser, readPostgres } from './sql-postgres.ts';
import { readMysql } from './sql-mysql.ts';
import { boundStatements, CREATE_TABLE, splitStatements } from './sql-statements.ts';
import type { StatementsRead } from './sql-statements.ts';
import { tablesToModels } from './sql-tables.ts';

function rejectedTables(read: StatementsRead): number {
  return read.rejected.filter((s) => CREATE_TABLE.test(s.text)).length;
}

function firstWords(text: string): string {
  const statement = text.replace(/--[^\n]*\n|\/\*[\s\S]*?\*\//g, ' ').trim();
  return statement.split(/\s+/).slice(0, 3).join(' ');
}

export const extractSql: Extractor = async (input) => {
  const source = new TextDecoder().decode(input.bytes);
  await loadPostgresParser();
  let dialect: 'postgresql' | 'mysql' = 'postgresql';
  const postgres = boundStatements(await splitStatements(source, 'postgresql'));
  let read = readPostgres(postgres.statements);
  read.ignored += postgres.unparsed;
  if (read.tables.length === 0 || rejectedTables(read) > 0) {
    const statements = boundStatements(await splitStatements(source, 'mysql'));
    const mysql = await readMysql(statements.statements);
    mysql.ignored += statements.unparsed;
    if (mysql.tables.length > read.tables.length) {
      read = mysql;
      dialect = 'mysql';
    }
  }
  const parsed = read.ignored + read.tables.length;
  if (parsed === 0 && read.rejected.length > 0) {
    throw new ExtractionError(`no statement of ${input.name} parses as PostgreSQL or MySQL DDL`);
  }
  const draft: Draft = emptyDraft();
  draft.description = `${dialect === 'mysql' ? 'MySQL' : 'PostgreSQL'} schema: ${read.tables.length} tables`;
  draft.models = tablesToModels(read.tables, draft.warnings);
  if (read.tables.length === 0) {
    draft.warnings.push({ locator: 'document', message: 'no CREATE TABLE statement found: no models' });
  }
  if (read.partitions > 0) {
    draft.warnings.push({
      locator: 'document',
      message: `${pluralize('partition', read.partitions, true)} read as part of their parent table (their foreign keys included)`,
    });
  }
  if (read.ignored > 0) {
    draft.warnings.push({
      locator: 'document',
      message: `${pluralize('statement', read.ignored, true)} describing no table (settings, sequences, functions, triggers, views, indexes, grants, data) skipped`,
    });
  }
  const dialectName = dialect === 'mysql' ? 'MySQL' : 'PostgreSQL';
  for (const statement of read.rejected.filter((s) => CREATE_TABLE.test(s.text))) {
    draft.warnings.push({
      locator: `line ${statement.line}`,
      message: `${firstWords(statement.text)}: not ${dialectName} the parser understands, table left out`,
    });
  }
  const others = read.rejected.filter((s) => !CREATE_TABLE.test(s.text));
  if (others.length > 0) {
    const shown = others.slice(0, 10).map((s) => `line ${s.line} (${firstWords(s.text)})`);
    const more = others.length > shown.length ? ` and ${others.length - shown.length} more` : '';
    draft.warnings.push({
      locator: `line ${others[0]!.line}`,
      message: `${pluralize('statement', others.length, true)} the ${dialectName} parser does not understand skipped: ${shown.join(', ')}${more}`,
    });
  }
  return draft;
};
