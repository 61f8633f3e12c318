/**
 * MySQL DDL through node-sql-parser's MySQL grammar: `CREATE TABLE` (columns, `ENUM`/`SET`,
 * inline and table constraints) and `ALTER TABLE … ADD CONSTRAINT`. Its AST is loosely typed,
 * so it is read through the small accessors below rather than trusted shapes.
 */
import type { EnumValue } from '../../definition/schema.ts';
import type { SqlColumn, SqlForeignKey, SqlTable } from './sql-tables.ts';
import type { SqlStatement, StatementsRead } from './sql-statements.ts';
import { checkTable } from './sql-statements.ts';

type Ast = Record<string, unknown>;

// Imported on first use: node-sql-parser's grammar is ~10 MB of V8 heap, needed only when a
// SQL attachment reads better as MySQL (issue 28).
type MysqlGrammar = typeof import('node-sql-parser/build/mysql.js');
let grammar: Promise<MysqlGrammar> | undefined;
function mysqlGrammar(): Promise<MysqlGrammar> {
  grammar ??= import('node-sql-parser/build/mysql.js').then((module) => module.default);
  return grammar;
}

function obj(value: unknown): Ast | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Ast) : undefined;
}
function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  const o = obj(value);
  if (!o) return undefined;
  // column names come as a string or as {expr: {value}} depending on the grammar path
  return text(o.value) ?? text(o.column) ?? text(o.expr);
}

/** A literal the AST holds: a number, a quoted string, a boolean. */
function literal(node: unknown): EnumValue | undefined {
  const o = obj(node);
  if (!o) return undefined;
  if (o.type === 'number') return Number(o.value);
  if (o.type === 'bool' || o.type === 'boolean') return Boolean(o.value);
  if (o.type === 'single_quote_string' || o.type === 'double_quote_string' || o.type === 'string') {
    return typeof o.value === 'string' ? o.value : undefined;
  }
  return undefined;
}

function columnNames(definition: unknown): string[] {
  return list(definition).map(text).filter((s): s is string => s !== undefined);
}

function foreignKey(columns: string[], reference: unknown): SqlForeignKey | undefined {
  const ref = obj(reference);
  const table = text(obj(list(ref?.table)[0])?.table);
  return ref && table ? { columns, table, refColumns: columnNames(ref.definition) } : undefined;
}

/** `col IN ('a', 'b')` in a CHECK. */
function checkEnum(check: unknown): { column: string; values: EnumValue[] } | undefined {
  const expr = obj(list(obj(check)?.definition)[0]);
  if (!expr || expr.type !== 'binary_expr' || String(expr.operator).toUpperCase() !== 'IN') return undefined;
  const column = text(obj(expr.left)?.column);
  const values = list(obj(expr.right)?.value).map(literal);
  if (!column || values.length === 0 || values.some((v) => v === undefined)) return undefined;
  return { column, values: values as EnumValue[] };
}

function readColumn(def: Ast, table: SqlTable): SqlColumn {
  const definition = obj(def.definition) ?? {};
  const type = String(definition.dataType ?? '').toLowerCase();
  const column: SqlColumn = {
    name: text(obj(def.column)?.column) ?? text(def.column) ?? '',
    type,
    array: false,
    notNull: obj(def.nullable)?.type === 'not null' || def.primary_key !== undefined,
  };
  if (type === 'enum' || type === 'set') {
    const values = list(obj(definition.expr)?.value).map(literal);
    if (values.length > 0 && values.every((v) => v !== undefined)) column.enum = values as EnumValue[];
  }
  const found = checkEnum(def.check);
  if (found && found.column === column.name) column.enum = found.values;
  if (def.auto_increment) column.computedDefault = 'sequence';
  const defaultNode = obj(obj(def.default_val)?.value);
  if (defaultNode) {
    const value = literal(defaultNode);
    if (value !== undefined) {
      column.defaultValue = typeof value === 'string' && /^(decimal|numeric|float|double|real|int|integer|smallint|tinyint|mediumint|bigint)$/.test(type)
        ? Number(value)
        : value;
    } else if (defaultNode.type === 'function') {
      const fn = text(list(obj(defaultNode.name)?.name)[0])?.toUpperCase();
      column.computedDefault = fn === 'CURRENT_TIMESTAMP' || fn === 'NOW' ? 'now' : 'other';
    }
  }
  if (def.primary_key) table.primaryKey = [column.name];
  const fk = foreignKey([column.name], def.reference_definition);
  if (fk) table.foreignKeys.push(fk);
  return column;
}

function readConstraint(def: Ast, table: SqlTable): void {
  const kind = String(def.constraint_type ?? '').toLowerCase();
  const columns = columnNames(def.definition);
  if (kind === 'primary key') {
    table.primaryKey = columns;
    for (const column of table.columns) if (columns.includes(column.name)) column.notNull = true;
  } else if (kind === 'foreign key') {
    const fk = foreignKey(columns, def.reference_definition);
    if (fk && !table.foreignKeys.some((k) => k.columns.join() === fk.columns.join())) table.foreignKeys.push(fk);
  } else if (kind === 'check') {
    const found = checkEnum(def);
    const column = found && table.columns.find((c) => c.name === found.column);
    if (column && found) column.enum = found.values;
  }
}

/**
 * Column and table attributes that say how MySQL stores a value, not what it is (`BINARY`,
 * `CHARACTER SET x`, `COLLATE x`, `ZEROFILL`, `ON UPDATE CURRENT_TIMESTAMP`, `COMMENT '…'`,
 * `SRID n`, `INVISIBLE`…): where the grammar stops at one, it is cut out and the statement read
 * again, so an attribute costs only itself, never the table.
 */
const STORAGE_ATTRIBUTE =
  /^(?:BINARY|ZEROFILL|UNSIGNED|SIGNED|INVISIBLE|VISIBLE|SRID\s+\d+|STORAGE\s+(?:DISK|MEMORY|DEFAULT)|COLUMN_FORMAT\s+\w+|(?:CHARACTER\s+SET|CHARSET)\s*=?\s*\w+|COLLATE\s*=?\s*\w+|COMMENT\s*=?\s*'(?:[^'\\]|\\.|'')*'|ON\s+UPDATE\s+CURRENT_TIMESTAMP(?:\s*\(\s*\d*\s*\))?|SERIAL\s+DEFAULT\s+VALUE)(?![\w(])/i;

/** Type names MySQL takes as synonyms of those the grammar reads: replaced where it stops at one. */
const TYPE_SYNONYMS: Array<[RegExp, string]> = [
  [/^(?:NVARCHAR|NATIONAL\s+VARCHAR|NATIONAL\s+CHAR(?:ACTER)?\s+VARYING|NCHAR\s+VARCHAR|CHARACTER\s+VARYING)(?![\w])/i, 'VARCHAR'],
  [/^(?:NCHAR|NATIONAL\s+CHAR(?:ACTER)?)(?![\w])/i, 'CHAR'],
  [/^DOUBLE\s+PRECISION(?![\w])/i, 'DOUBLE'],
];

interface Parser { astify(sql: string, options: { database: string }): unknown }

/** The statement's trees, after cutting out the storage attributes the grammar stops at (listed in `cut`). */
function parseLeniently(parser: Parser, text: string, cut: string[]): unknown[] {
  let sql = text;
  for (let attempt = 0; ; attempt++) {
    try {
      const result: unknown = parser.astify(sql, { database: 'mysql' });
      return Array.isArray(result) ? result : [result];
    } catch (error) {
      const offset = (error as { location?: { start?: { offset?: number } } }).location?.start?.offset;
      if (offset === undefined || attempt >= 50) throw error;
      const rest = sql.slice(offset);
      const synonym = TYPE_SYNONYMS.find(([pattern]) => pattern.test(rest));
      if (synonym) {
        // a type spelt another way is the same type: read, not reported
        sql = `${sql.slice(0, offset)}${rest.replace(synonym[0], synonym[1])}`;
        continue;
      }
      const attribute = STORAGE_ATTRIBUTE.exec(rest);
      if (!attribute) throw error;
      cut.push(attribute[0].replace(/\s+/g, ' '));
      sql = `${sql.slice(0, offset)}${sql.slice(offset + attribute[0].length)}`;
    }
  }
}

export async function readMysql(statements: SqlStatement[]): Promise<StatementsRead> {
  const parser = new (await mysqlGrammar()).Parser();
  const tables = new Map<string, SqlTable>();
  const rejected: Array<SqlStatement & { reason?: string }> = [];
  const attributesCut: Array<{ line: number; attributes: string[] }> = [];
  const replaced: SqlTable[] = [];
  let ignored = 0;
  for (const statement of statements) {
    let asts: unknown[];
    const cut: string[] = [];
    try {
      asts = parseLeniently(parser, statement.text, cut);
    } catch (error) {
      rejected.push({ ...statement, reason: error instanceof Error ? error.message.slice(0, 200) : String(error) });
      continue;
    }
    if (cut.length > 0) attributesCut.push({ line: statement.line, attributes: cut });
    for (const node of asts.map(obj)) {
      if (node?.type === 'create' && node.keyword === 'table') {
        const ref = obj(list(node.table)[0]);
        const name = text(ref?.table);
        if (!name) continue;
        const db = text(ref?.db);
        const table: SqlTable = {
          name, qualifiedName: db ? `${db}.${name}` : name, line: statement.line, columns: [], primaryKey: [], foreignKeys: [],
        };
        for (const def of list(node.create_definitions).map(obj)) {
          if (def?.resource === 'column') table.columns.push(readColumn(def, table));
        }
        checkTable(table, tables.size);
        for (const def of list(node.create_definitions).map(obj)) {
          if (def?.resource === 'constraint') readConstraint(def, table);
        }
        const before = tables.get(name);
        if (before) replaced.push(before);
        tables.set(name, table);
      } else if (node?.type === 'alter') {
        const table = tables.get(text(obj(list(node.table)[0])?.table) ?? '');
        for (const expr of list(node.expr).map(obj)) {
          const def = obj(expr?.create_definitions);
          if (table && expr?.action === 'add' && def?.resource === 'constraint') readConstraint(def, table);
        }
      } else {
        ignored += 1;
      }
    }
  }
  return { tables: [...tables.values()], rejected, ignored, partitions: 0, partitionNames: [], partitionParents: {}, replaced, attributesCut };
}
