/**
 * What an application backup holds besides its data schema: the control-plane rows that are the
 * application (in the order they are written back), and the checksum that compares a table's
 * rows with the ones in an archive.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../storage/db.ts';
import { quote } from './schema-ddl.ts';

/**
 * The control-plane tables whose rows with the application's id are the application: its
 * definition and every version, deployments and migrations, its signing key, variables and
 * sealed secrets (with the data key that seals them), file keys, and end users' factors.
 * Sessions, refresh and mail tokens are left out: a restore signs every end user out.
 * Logs, metrics, jobs, runs and the audit are history, not state.
 */
export const CONTROL_TABLES = [
  'application_version_rows',
  'version_blobs',
  'app_schemas',
  'app_migrations',
  'deployments',
  'app_keys',
  'data_keys',
  'config_values',
  'app_files',
  'app_webhooks',
  'end_user_states',
  'end_user_identities',
  'end_user_totp',
  'end_user_recovery_codes',
] as const;

/** The columns of appbuilder.`table` a row is written to (not generated), in order. */
export async function writableColumns(executor: Executor, schema: string, table: string): Promise<string[]> {
  const result = await sql<{ name: string }>`select a.attname as name from pg_attribute a
    join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and c.relname = ${table} and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
    order by a.attnum`.execute(executor);
  return result.rows.map((row) => row.name);
}

/** Which of the control tables exist in this store (a table may come with a later migration). */
export async function existingControlTables(executor: Executor): Promise<string[]> {
  const result = await sql<{ name: string }>`select table_name as name from information_schema.tables
    where table_schema = 'appbuilder' and table_type = 'BASE TABLE' and table_name = any(cast(${[...CONTROL_TABLES]} as text[]))`.execute(executor);
  const present = new Set(result.rows.map((row) => row.name));
  return CONTROL_TABLES.filter((table) => present.has(table));
}

/**
 * Rows and an order-free checksum of a table: the sum of the first 60 bits of each row's MD5,
 * so two tables with the same rows in any order compare equal, and a changed value does not.
 */
export async function tableSummary(executor: Executor, schema: string, table: string): Promise<{ rows: number; checksum: string }> {
  const result = await sql<{ rows: number; checksum: string }>`select count(*)::int as rows,
    coalesce(sum(('x' || substr(md5(t::text), 1, 15))::bit(60)::bigint::numeric), 0)::text as checksum
    from ${sql.raw(`${quote(schema)}.${quote(table)}`)} t`.execute(executor);
  return result.rows[0]!;
}

/** Streams the rows of `query` as JSON text, a page at a time, through a cursor (inside a transaction). */
export async function* jsonRows(executor: Executor, query: RawBuilder<unknown>, page = 5000): AsyncGenerator<string[]> {
  const cursor = sql.raw(`backup_${Math.random().toString(36).slice(2, 10)}`);
  await sql`declare ${cursor} no scroll cursor for select row_to_json(t)::text as j from (${query}) t`.execute(executor);
  try {
    for (;;) {
      const result = await sql<{ j: string }>`fetch ${sql.raw(String(page))} from ${cursor}`.execute(executor);
      if (result.rows.length === 0) break;
      yield result.rows.map((row) => row.j);
      if (result.rows.length < page) break;
    }
  } finally {
    await sql`close ${cursor}`.execute(executor);
  }
}

/** Writes NDJSON `lines` into `schema`.`table` (its writable columns), in one statement per batch. */
export async function insertJsonRows(executor: Executor, schema: string, table: string, columns: string[], lines: string[]): Promise<void> {
  if (lines.length === 0) return;
  const target = `${quote(schema)}.${quote(table)}`;
  const list = columns.map(quote).join(', ');
  await sql`insert into ${sql.raw(target)} (${sql.raw(list)}) select ${sql.raw(list)} from json_populate_recordset(null::${sql.raw(target)}, ${`[${lines.join(',')}]`}::json)`.execute(executor);
}
