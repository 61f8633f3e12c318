import { sql, type RawBuilder } from 'kysely';
import type { CompiledField } from '../compiled-app.ts';
import { PRIMITIVE_SQL_TYPES } from '../../compiler/schema/columns.ts';

/**
 * A value as a typed parameter. The explicit casts make both drivers bind the same
 * way: PGlite infers parameter types and would encode a jsonb string twice.
 */
export function bindFieldValue(field: CompiledField, value: unknown): RawBuilder<unknown> {
  if (field.relation) return sql`cast(${value} as uuid)`;
  const type = (PRIMITIVE_SQL_TYPES as Readonly<Record<string, string>>)[field.to] ?? 'text';
  if (value === null) return sql`null`;
  if (type === 'jsonb') return sql`cast(${JSON.stringify(value)} as jsonb)`;
  if (field.many) return sql`cast(${value} as ${sql.raw(type)}[])`;
  return sql`cast(${value} as ${sql.raw(type)})`;
}
