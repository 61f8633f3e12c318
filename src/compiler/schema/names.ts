/**
 * Names of the constraints and indexes the compiler creates. Deterministic and at
 * most 63 bytes (PostgreSQL's limit): long names keep a readable head and end in a
 * hash of the whole name, so two long names cannot meet.
 */
import { createHash } from 'node:crypto';

const MAX = 63;

export function objectName(...parts: string[]): string {
  const full = parts.join('_');
  if (full.length <= MAX) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 10);
  return `${full.slice(0, MAX - 12).replace(/_+$/, '')}__${hash}`;
}

/** A column's CHECK constraint (unique per table). */
export const checkName = (table: string, column: string): string => objectName(table, column, 'check');
/** A foreign-key constraint (unique per table). */
export const foreignKeyName = (table: string, column: string): string => objectName(table, column, 'fkey');
/** An index (unique in the schema, hence the table in the name). */
export const indexName = (table: string, column: string): string => objectName(table, column, 'idx');
/** A primary key (an index too). */
export const primaryKeyName = (table: string): string => objectName(table, 'pkey');
