/**
 * SQL (DESIGN §13): PostgreSQL first (PostgreSQL's own parser), MySQL when the document
 * reads better as MySQL (backticks, `ENGINE=`, `ENUM(…)` columns PostgreSQL rejects).
 * Nothing is dropped silently: each statement is read or skipped on its own (a MySQL storage
 * attribute the grammar does not know is cut out of its statement, never costing the table);
 * routines, triggers and views are skipped by name; rows (`INSERT`, `COPY … FROM stdin`) are
 * data for a data import, named by table. A `CREATE TABLE` that still cannot be read fails the
 * document with its line: a table left out would leave the foreign keys pointing at it without
 * their meaning; with `force` it is left out instead, each with its line and the parser's reason,
 * and the keys pointing at it stay plain columns. One warning reports, per document, every table as a model, a join, a
 * partition or left out. A data-only file (no `CREATE TABLE`) gives no models and no error.
 * The script is bounded before it is parsed (statements, their length) and each table as it
 * is read (columns): limits.ts.
 */
import pluralize from 'pluralize';
import { ExtractionError, emptyDraft } from './types.ts';
import type { Draft, Extractor } from './types.ts';
import { loadPostgresParser, readPostgres } from './sql-postgres.ts';
import { readMysql } from './sql-mysql.ts';
import { boundStatements, CREATE_TABLE, splitStatements } from './sql-statements.ts';
import type { SqlStatement, StatementsRead } from './sql-statements.ts';
import { tablesToModels } from './sql-tables.ts';
import { decodeDocumentText } from '../text.ts';

type Dialect = 'postgresql' | 'mysql';
const DIALECT_NAME: Record<Dialect, string> = { postgresql: 'PostgreSQL', mysql: 'MySQL' };

/** Signs of MySQL in a script's text: backquoted names, version comments, `DELIMITER`, `ENGINE=`, backslash-escaped quotes. */
const MYSQL_SIGNS = /`[^`\n]+`|\/\*!\d{5}|^[ \t]*DELIMITER[ \t]|\bENGINE[ \t]*=|\\'/im;

/** pg_dump's own marks: its header, `COPY … FROM stdin`, `$$` bodies (a backquote in their data is no sign of MySQL). */
const POSTGRES_SIGNS = /^-- PostgreSQL database dump|\bFROM[ \t]+stdin;|\$\$/im;

function rejectedTables(read: StatementsRead): number {
  return read.rejected.filter((s) => CREATE_TABLE.test(s.text)).length;
}

/** The statement without comments and MySQL's version-comment markers (`/*!50003 CREATE *\/` reads `CREATE`). */
function bare(text: string): string {
  return text
    .replace(/\/\*!\d*|\*\//g, ' ')
    .replace(/--[^\n]*\n|\/\*[\s\S]*?\*\//g, ' ')
    .trim();
}

function firstWords(text: string): string {
  return bare(text).split(/\s+/).slice(0, 3).join(' ');
}

/** `CREATE [DEFINER=…] TRIGGER name`, `CREATE OR REPLACE FUNCTION name`, …: what and which. */
const ROUTINE = /^create\s+(?:or\s+replace\s+)?(?:(?:definer\s*=\s*\S+|algorithm\s*=\s*\w+|sql\s+security\s+\w+|temporary|recursive|materialized)\s+)*(trigger|procedure|function|view|event|aggregate|rule)\s+(?:if\s+not\s+exists\s+)?([`"\w.$]+)/i;

function routineOf(text: string): { kind: string; name: string } | undefined {
  // mysqldump's stand-in for a view, `/*!50001 CREATE TABLE \`v\` (…) */`: MySQL before 5.0.1 ran it, none since
  const standIn = /^\/\*!\d{5}\s+create\s+table\s+([`"\w.$]+)/i.exec(text.trimStart());
  if (standIn) return { kind: 'view stand-in table', name: standIn[1]!.replace(/[`"]/g, '') };
  const match = ROUTINE.exec(bare(text));
  return match ? { kind: match[1]!.toLowerCase(), name: match[2]!.replace(/[`"]/g, '') } : undefined;
}

function names(list: string[], max = 12): string {
  const shown = list.slice(0, max).join(', ');
  return list.length > max ? `${shown} and ${list.length - max} more` : shown;
}

/** The data statements' tables, as a sentence: `actor (1 statement), film (2 statements)`. */
function dataTables(data: Map<string, number>): string {
  return names([...data.entries()].map(([table, count]) => `${table} (${pluralize('statement', count, true)})`), 30);
}

interface Routine { kind: string; name: string; line: number }

/**
 * Routines, triggers and views are read by name and set aside before parsing: a parser may
 * reject them, or (MySQL's `/*!50003 CREATE*\/ … TRIGGER … *\/`) read them as nothing at all.
 */
function setAsideRoutines(statements: SqlStatement[]): { statements: SqlStatement[]; routines: Routine[] } {
  const routines: Routine[] = [];
  const rest: SqlStatement[] = [];
  for (const statement of statements) {
    const routine = routineOf(statement.text);
    if (routine) routines.push({ ...routine, line: statement.line });
    else rest.push(statement);
  }
  return { statements: rest, routines };
}

function warnRoutines(draft: Draft, routines: Routine[]): void {
  if (routines.length === 0) return;
  draft.warnings.push({
    locator: `line ${routines[0]!.line}`,
    message: `${pluralize('routine, trigger or view', routines.length, true)} skipped, statement by statement: ${names(routines.map((r) => `${r.kind} ${r.name} (line ${r.line})`))}`,
  });
}

function dataOnlyDraft(data: Map<string, number>, dialect: Dialect): Draft {
  const draft = emptyDraft();
  const statements = [...data.values()].reduce((a, b) => a + b, 0);
  draft.description = `SQL data (${DIALECT_NAME[dialect]}): rows for ${pluralize('table', data.size, true)}`;
  draft.warnings.push({
    locator: 'document',
    message: `data only, no CREATE TABLE: ${pluralize('statement', statements, true)} of rows for ${pluralize('table', data.size, true)} (${dataTables(data)}); they are data for the tables a schema attachment defines, brought in by a data import, not models`,
  });
  return draft;
}

export const extractSql: Extractor = async (input) => {
  const decoded = decodeDocumentText(input.bytes);
  const source = decoded.text;
  await loadPostgresParser();
  const head = source.slice(0, 256 * 1024);
  const mysqlLikely = MYSQL_SIGNS.test(head) && !POSTGRES_SIGNS.test(head);
  // Each dialect's split is made at most once (a 25 MiB dump takes ~2 s to split).
  const splits = new Map<Dialect, ReturnType<typeof boundStatements>>();
  const splitAs = async (d: Dialect) => {
    let found = splits.get(d);
    if (!found) splits.set(d, (found = boundStatements(await splitStatements(source, d))));
    return found;
  };
  let dialect: Dialect = mysqlLikely ? 'mysql' : 'postgresql';
  const first = await splitAs(dialect);
  const hasTables = (statements: SqlStatement[]) => statements.some((s) => CREATE_TABLE.test(s.text));
  if (!hasTables(first.statements) && first.data.size > 0) {
    const draft = dataOnlyDraft(first.data, dialect);
    if (decoded.warning) draft.warnings.unshift(decoded.warning);
    warnRoutines(draft, setAsideRoutines(first.statements).routines);
    return draft;
  }
  dialect = 'postgresql';
  const split = await splitAs('postgresql');
  let routines = setAsideRoutines(split.statements);
  let read = readPostgres(routines.statements);
  read.ignored += split.unparsed;
  let data = split.data;
  if (read.tables.length === 0 || rejectedTables(read) > 0) {
    const statements = await splitAs('mysql');
    const mysqlRoutines = setAsideRoutines(statements.statements);
    const mysql = await readMysql(mysqlRoutines.statements);
    mysql.ignored += statements.unparsed;
    if (mysql.tables.length > read.tables.length) {
      read = mysql;
      dialect = 'mysql';
      data = statements.data;
      routines = mysqlRoutines;
    }
  }
  const parsed = read.ignored + read.tables.length;
  if (parsed === 0 && read.rejected.length > 0) {
    throw new ExtractionError(`no statement of ${input.name} parses as PostgreSQL or MySQL DDL`);
  }
  const dialectName = DIALECT_NAME[dialect];
  const unreadTables = read.rejected.filter((s) => CREATE_TABLE.test(s.text));
  if (unreadTables.length > 0 && !input.force) {
    const first = unreadTables[0]!;
    const all = unreadTables.map((s) => `line ${s.line} (${firstWords(s.text)})`);
    const error = new ExtractionError(
      `${pluralize('CREATE TABLE statement', unreadTables.length, true)} could not be read as ${dialectName}: ${names(all)}${first.reason ? `; at line ${first.line}: ${first.reason}` : ''}. A table left out would leave the foreign keys that point at it without their meaning, so the document is not read.`,
    );
    error.failsSpecification = true;
    throw error;
  }
  const draft: Draft = emptyDraft();
  if (decoded.warning) draft.warnings.push(decoded.warning);
  draft.description = `${dialectName} schema: ${read.tables.length} tables`;
  draft.models = tablesToModels(read.tables, draft.warnings);
  if (read.tables.length === 0) {
    draft.warnings.push({ locator: 'document', message: 'no CREATE TABLE statement found: no models' });
  }
  for (const { line, attributes } of read.attributesCut) {
    draft.warnings.push({ locator: `line ${line}`, message: `storage attributes the ${dialectName} grammar does not read were set aside and the rest of the statement read: ${attributes.join(', ')}` });
  }
  const forced = unreadTables.map((s) => ({ name: tableNameOf(s.text), line: s.line, reason: s.reason }));
  for (const table of forced) {
    draft.warnings.push({
      locator: `line ${table.line}`,
      message: `CREATE TABLE ${table.name} could not be read as ${dialectName}${table.reason ? ` (${table.reason})` : ''}: left out, as asked (force); a foreign key pointing at it is kept as a plain column`,
    });
  }
  reportTables(draft, read, forced);
  if (data.size > 0) {
    draft.warnings.push({
      locator: 'document',
      message: `rows for ${pluralize('table', data.size, true)} (${dataTables(data)}): data for a data import, not part of the models`,
    });
  }
  warnRoutines(draft, routines.routines);
  if (read.ignored > 0) {
    draft.warnings.push({
      locator: 'document',
      message: `${pluralize('statement', read.ignored, true)} describing no table (settings, sequences, types, indexes, grants) skipped`,
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

/** `CREATE TABLE IF NOT EXISTS \`sakila\`.\`staff\` (…` → `sakila.staff`; the statement's first words when no name reads. */
function tableNameOf(text: string): string {
  const match = /create\s+(?:(?:global|local|temporary|temp|unlogged)\s+)*table\s+(?:if\s+not\s+exists\s+)?([`"\w.$]+)/i.exec(bare(text));
  return match ? match[1]!.replace(/[`"]/g, '') : firstWords(text);
}

/** Every CREATE TABLE of the document, as a model, a join, a partition or left out, in one warning. */
function reportTables(draft: Draft, read: StatementsRead, unread: Array<{ name: string; line: number }> = []): void {
  const joins = draft.models.filter((m) => m.joinOf).map((m) => m.name);
  const models = draft.models.filter((m) => !m.joinOf).map((m) => m.name);
  const total = draft.models.length + read.partitionNames.length + read.replaced.length + unread.length;
  const parts = [`${pluralize('model', models.length, true)} (${names(models, 40)})`];
  if (joins.length > 0) parts.push(`${pluralize('join table', joins.length, true)} read as many-to-many (${names(joins)})`);
  if (read.partitionNames.length > 0) {
    parts.push(`${pluralize('partition', read.partitionNames.length, true)} read as part of their parent table, their foreign keys included (${names(read.partitionNames, 6)})`);
  }
  const leftOut = [
    ...read.replaced.map((t) => `${t.qualifiedName} (line ${t.line}: replaced by a later CREATE TABLE of the same name)`),
    ...unread.map((t) => `${t.name} (line ${t.line}: not readable, left out with force)`),
  ];
  parts.push(leftOut.length > 0 ? `left out: ${leftOut.join(', ')}` : 'none left out');
  draft.warnings.push({ locator: 'document', message: `${pluralize('table', total, true)} in the document: ${parts.join('; ')}` });
}
