import { sql, type RawBuilder } from 'kysely';

/**
 * Quotes an SQL identifier. The one place identifiers are quoted: every generated
 * table, column and schema name goes through here, values never do (they are parameters).
 */
export function quoteIdent(name: string): string {
  if (name.length === 0 || name.length > 63 || name.includes('\u0000')) {
    throw new Error(`Invalid SQL identifier: ${JSON.stringify(name)}`);
  }
  return `"${name.replace(/"/g, '""')}"`;
}

export function ident(...parts: string[]): RawBuilder<unknown> {
  return sql.raw(parts.map(quoteIdent).join('.'));
}

/** A JSON value as a `jsonb` parameter (text cast, so both drivers bind it the same way). */
export function jsonb(value: unknown): RawBuilder<string> {
  return sql<string>`cast(${JSON.stringify(value)} as jsonb)`;
}

export function toIso(value: Date | string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
