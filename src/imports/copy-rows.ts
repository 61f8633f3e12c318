/**
 * Rows into a model's table by `COPY … FROM STDIN` (text format) on the `pg` driver: the rows
 * travel as one stream of lines, parsed by PostgreSQL's COPY code, with no statement per batch
 * and no JSON decoded on the server — several times the rate of multi-row INSERTs. The values
 * are the ones the write path checked; each is written as the text its column's input
 * function reads (what the INSERT path's JSON cast gives the same column).
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pgCopy from 'pg-copy-streams';
import type { Executor } from '../storage/db.ts';
import { quoteIdent } from '../storage/sql.ts';
import { withPgClient } from '../storage/raw-client.ts';
import { PRIMITIVE_SQL_TYPES } from '../compiler/schema/columns.ts';
import type { CompiledField, CompiledModel } from '../runtime/compiled-app.ts';

/** True when every column of `model` is written as one scalar text (no PostgreSQL arrays). */
export function copyable(model: CompiledModel): boolean {
  return model.fields.every((field) => {
    if (field.column === null || field.relation) return true;
    const type = (PRIMITIVE_SQL_TYPES as Readonly<Record<string, string>>)[field.to] ?? 'text';
    return !field.many || type === 'jsonb';
  });
}

/** COPY text format: backslash, newline, carriage return and tab are escaped; null is `\N`. */
function escapeCopy(text: string): string {
  return /[\\\n\r\t]/.test(text) ? text.replace(/[\\\n\r\t]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t')) : text;
}

function copyText(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string') return escapeCopy(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '\\N';
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return value.toISOString();
  // jsonb (addresses, amounts, JSON arrays)
  return escapeCopy(JSON.stringify(value));
}

/** One row's line: its id, then its `values` in the order of the columns copied. */
export function copyLine(id: string, values: readonly unknown[]): string {
  let line = id;
  for (let i = 0; i < values.length; i++) line += `\t${copyText(values[i])}`;
  return `${line}\n`;
}

/** One row as a JSON object of its columns (the INSERT path's `json_to_recordset`): `{"id":…,"column":…}`. */
export function jsonRecord(id: string, columns: readonly CompiledField[], values: readonly unknown[]): string {
  let record = `{"id":"${id}"`;
  for (let i = 0; i < columns.length; i++) {
    const value = values[i];
    if (value !== null && value !== undefined) record += `,${JSON.stringify(columns[i]!.column)}:${JSON.stringify(value)}`;
  }
  return `${record}}`;
}

/** Copies `lines` (from copyLine over the same `columns`) into `schema.table`, on `executor`'s connection. */
export async function copyInto(executor: Executor, schema: string, table: string, columns: readonly CompiledField[], lines: string): Promise<void> {
  const names = ['id', ...columns.map((f) => f.column!)].map(quoteIdent).join(', ');
  const statement = `copy ${quoteIdent(schema)}.${quoteIdent(table)} (${names}) from stdin`;
  await withPgClient(executor, async (client) => {
    const stream = client.query(pgCopy.from(statement));
    await pipeline(Readable.from([Buffer.from(lines)]), stream);
  });
}
