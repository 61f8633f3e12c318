/**
 * The structure of one application's data schema read from PostgreSQL's catalog, as statements
 * that make it again under another name: functions, tables (columns in their order, defaults,
 * generated columns), constraints, indexes and triggers. The schema's name is written as
 * SCHEMA_PLACEHOLDER, so the same statements build the real schema on a restore and a scratch
 * one for the restore drill.
 */
import { sql } from 'kysely';
import type { Executor } from '../storage/db.ts';

export const SCHEMA_PLACEHOLDER = '__appbuilder_backup_schema__';

export interface TableShape {
  name: string;
  /** Every column in order. */
  columns: string[];
  /** The columns a row is written to (generated ones are computed). */
  writable: string[];
}

export interface SchemaShape {
  statements: string[];
  tables: TableShape[];
}

/**
 * Reads the shape of `schema`. Runs `set local search_path` so the catalog's functions qualify
 * every name: call it inside a transaction.
 */
export async function readSchemaShape(executor: Executor, schema: string): Promise<SchemaShape> {
  await sql`set local search_path = pg_catalog`.execute(executor);
  const exists = await sql<{ oid: number }>`select oid::int from pg_namespace where nspname = ${schema}`.execute(executor);
  if (exists.rows.length === 0) return { statements: [], tables: [] };
  // Every mention of the name: qualified names, and the name inside function bodies (notices).
  const replace = (text: string) => text.split(`"${schema}"`).join(SCHEMA_PLACEHOLDER).split(schema).join(SCHEMA_PLACEHOLDER);
  const statements: string[] = [];
  const functions = await sql<{ def: string }>`select pg_get_functiondef(p.oid) as def from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = ${schema} and p.prokind = 'f' order by p.oid`.execute(executor);
  for (const row of functions.rows) statements.push(replace(row.def));
  const columns = await sql<{ table_name: string; column_name: string; type: string; not_null: boolean; default_expr: string | null; generated: string }>`
    select c.relname as table_name, a.attname as column_name, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as not_null,
      pg_get_expr(d.adbin, d.adrelid) as default_expr, a.attgenerated::text as generated
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
    where n.nspname = ${schema} and c.relkind in ('r', 'p')
    order by c.oid, a.attnum`.execute(executor);
  const tables = new Map<string, { defs: string[]; shape: TableShape }>();
  for (const column of columns.rows) {
    let table = tables.get(column.table_name);
    if (!table) {
      table = { defs: [], shape: { name: column.table_name, columns: [], writable: [] } };
      tables.set(column.table_name, table);
    }
    const generated = column.generated === 's';
    let def = `${quote(column.column_name)} ${column.type}`;
    if (generated && column.default_expr) def += ` generated always as (${replace(column.default_expr)}) stored`;
    else if (column.default_expr) def += ` default ${replace(column.default_expr)}`;
    if (column.not_null) def += ' not null';
    table.defs.push(def);
    table.shape.columns.push(column.column_name);
    if (!generated) table.shape.writable.push(column.column_name);
  }
  for (const [name, table] of tables) statements.push(`create table ${SCHEMA_PLACEHOLDER}.${quote(name)} (${table.defs.join(', ')})`);
  // Primary keys and unique constraints before the foreign keys that need them.
  const constraints = await sql<{ table_name: string; name: string; def: string }>`
    select c.relname as table_name, k.conname as name, pg_get_constraintdef(k.oid) as def
    from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and k.contype in ('p', 'u', 'c', 'x', 'f')
    order by case k.contype when 'f' then 1 else 0 end, k.oid`.execute(executor);
  for (const row of constraints.rows) {
    statements.push(`alter table ${SCHEMA_PLACEHOLDER}.${quote(row.table_name)} add constraint ${quote(row.name)} ${replace(row.def)}`);
  }
  const indexes = await sql<{ def: string }>`
    select pg_get_indexdef(i.indexrelid) as def from pg_index i join pg_class c on c.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid)
    order by i.indexrelid`.execute(executor);
  for (const row of indexes.rows) statements.push(replace(row.def));
  const triggers = await sql<{ def: string }>`
    select pg_get_triggerdef(t.oid) as def from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and not t.tgisinternal order by t.oid`.execute(executor);
  for (const row of triggers.rows) statements.push(replace(row.def));
  await sql`reset search_path`.execute(executor);
  return { statements, tables: [...tables.values()].map((table) => table.shape) };
}

export function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The statements with the placeholder replaced by `schema` (a plain lower-case name: `app_…`, `backup_drill_…`). */
export function statementsFor(statements: readonly string[], schema: string): string[] {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new TypeError(`Not a plain schema name: ${schema}`);
  return statements.map((statement) => statement.split(SCHEMA_PLACEHOLDER).join(schema));
}
