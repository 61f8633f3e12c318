/**
 * DDL text for the parts of a `SchemaPlan`. Every identifier goes through
 * `quoteIdent`; `sqlType`, `default` and `check` come pre-rendered from the plan.
 */
import { quoteIdent } from '../../storage/sql.ts';
import type { ColumnPlan, ForeignKeyPlan, IndexPlan, TablePlan } from './types.ts';

export const q = quoteIdent;

/** `"schema"."table"`. */
export const qualified = (schema: string, table: string): string => `${q(schema)}.${q(table)}`;

export const columnType = (column: Pick<ColumnPlan, 'sqlType' | 'isArray'>): string => `${column.sqlType}${column.isArray ? '[]' : ''}`;

/** `"col" type [default …] [not null] [primary key]` — for CREATE TABLE. */
function columnDefinition(column: ColumnPlan, primaryKey: boolean): string {
  let text = `${q(column.name)} ${columnType(column)}`;
  if (primaryKey) text += ' primary key';
  if (column.default !== null) text += ` default ${column.default}`;
  if (column.notNull && !primaryKey) text += ' not null';
  return text;
}

export function createSchema(schema: string): string {
  return `create schema if not exists ${q(schema)}`;
}

/**
 * CREATE TABLE with its columns, primary key, CHECK constraints and the foreign keys given
 * (`inline`: each to a table that exists by then; the others and indexes come later).
 */
export function createTable(schema: string, table: TablePlan, inline: readonly ForeignKeyPlan[] = []): string {
  const single = table.primaryKey.length === 1 ? table.primaryKey[0] : null;
  const parts = table.columns.map((c) => columnDefinition(c, c.name === single));
  if (!single) parts.push(`primary key (${table.primaryKey.map(q).join(', ')})`);
  for (const c of table.columns) if (c.check !== null) parts.push(`constraint ${q(c.checkName)} check (${c.check})`);
  for (const fk of inline) parts.push(foreignKeyConstraint(schema, fk));
  return `create table if not exists ${qualified(schema, table.name)} (${parts.join(', ')})`;
}

/** ADD COLUMN, nullable: NOT NULL and CHECK are separate steps, so a failure names its cause. */
export function addColumn(schema: string, table: string, column: ColumnPlan): string {
  const defaultSql = column.default !== null ? ` default ${column.default}` : '';
  return `alter table ${qualified(schema, table)} add column if not exists ${q(column.name)} ${columnType(column)}${defaultSql}`;
}

export function alterColumn(schema: string, table: string, column: string, action: string): string {
  return `alter table ${qualified(schema, table)} alter column ${q(column)} ${action}`;
}

export function addCheck(schema: string, table: string, column: ColumnPlan): string {
  return `alter table ${qualified(schema, table)} add constraint ${q(column.checkName)} check (${column.check})`;
}

export function dropConstraint(schema: string, table: string, name: string): string {
  return `alter table ${qualified(schema, table)} drop constraint if exists ${q(name)}`;
}

/** `constraint "name" foreign key ("col") references … on delete …`: the same in CREATE and ALTER TABLE. */
function foreignKeyConstraint(schema: string, fk: ForeignKeyPlan): string {
  return `constraint ${q(fk.name)} foreign key (${q(fk.column)}) references ${qualified(schema, fk.refTable)} (${q('id')}) on delete ${fk.onDelete}`;
}

export function addForeignKey(schema: string, fk: ForeignKeyPlan): string {
  return `alter table ${qualified(schema, fk.table)} add ${foreignKeyConstraint(schema, fk)}`;
}

export function createIndex(schema: string, index: IndexPlan): string {
  return `create index if not exists ${q(index.name)} on ${qualified(schema, index.table)} (${index.columns.map(q).join(', ')})`;
}
