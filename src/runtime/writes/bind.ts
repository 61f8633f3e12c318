import { sql, type RawBuilder } from 'kysely';
import type { CompiledField } from '../compiled-app.ts';

/** The column type of a primitive, as the schema compiler creates it (DESIGN §3). */
const SQL_TYPES: Record<string, string> = {
  p_TEXT: 'text',
  p_LINK: 'text',
  p_IMAGE: 'text',
  p_VIDEO: 'text',
  p_FILE: 'text',
  p_PHONE_NUMBER: 'text',
  p_NUMBER: 'double precision',
  p_BOOLEAN: 'boolean',
  p_DATE: 'date',
  p_DATE_TIME: 'timestamptz',
  p_TIME: 'time',
  p_STAR_RATING: 'smallint',
  p_ADDRESS: 'jsonb',
  p_CURRENCY_AMOUNT: 'jsonb',
};

/**
 * A value as a typed parameter. The explicit casts make both drivers bind the same
 * way: PGlite infers parameter types and would encode a jsonb string twice.
 */
export function bindFieldValue(field: CompiledField, value: unknown): RawBuilder<unknown> {
  if (field.relation) return sql`cast(${value} as uuid)`;
  const type = SQL_TYPES[field.to] ?? 'text';
  if (value === null) return sql`null`;
  if (type === 'jsonb') return sql`cast(${JSON.stringify(value)} as jsonb)`;
  if (field.many) return sql`cast(${value} as ${sql.raw(type)}[])`;
  return sql`cast(${value} as ${sql.raw(type)})`;
}
