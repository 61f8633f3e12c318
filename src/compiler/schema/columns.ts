/**
 * One field as a column (DESIGN §3): its SQL type, NOT NULL, DEFAULT and CHECK.
 * Relationship columns (uuid) get no DEFAULT or CHECK; their FK is planned in `plan.ts`.
 */
import { Problem } from '../../errors.ts';
import { literalDefault } from '../../definition/default-value.ts';
import { columnNameForField } from '../../definition/naming.ts';
import { isRelationship, isToMany } from '../../definition/relationships.ts';
import { isPrimitiveType, type Field, type PrimitiveType } from '../../definition/schema.ts';
import { quoteIdent } from '../../storage/sql.ts';
import { columnLiteral, scalarLiteral } from './literals.ts';
import { checkName } from './names.ts';
import type { ColumnPlan } from './types.ts';

/** The column type of each primitive (the element type for array columns). */
export const PRIMITIVE_SQL_TYPES: Readonly<Record<PrimitiveType, string>> = {
  p_TEXT: 'text',
  p_NUMBER: 'double precision',
  p_BOOLEAN: 'boolean',
  p_DATE: 'date',
  p_DATE_TIME: 'timestamptz',
  p_TIME: 'time',
  p_STAR_RATING: 'smallint',
  p_LINK: 'text',
  p_IMAGE: 'text',
  p_VIDEO: 'text',
  p_FILE: 'text',
  p_PHONE_NUMBER: 'text',
  p_ADDRESS: 'jsonb',
  p_CURRENCY_AMOUNT: 'jsonb',
};

/** The three columns every model table has. */
export function systemColumns(table: string, label: string, path: string): ColumnPlan[] {
  const base = { isArray: false, notNull: true, check: null, path };
  return [
    { ...base, name: 'id', sqlType: 'uuid', default: 'gen_random_uuid()', checkName: checkName(table, 'id'), label: `${label}.id` },
    { ...base, name: 'created_at', sqlType: 'timestamptz', default: 'now()', checkName: checkName(table, 'created_at'), label: `${label}.createdAt` },
    { ...base, name: 'updated_at', sqlType: 'timestamptz', default: 'now()', checkName: checkName(table, 'updated_at'), label: `${label}.updatedAt` },
  ];
}

/** The column of a stored field (a primitive, or a to-one pointer holding the FK). */
export function fieldColumn(table: string, modelName: string, field: Field, path: string): ColumnPlan {
  const name = columnNameForField(field.id);
  const label = `${modelName}.${field.name}`;
  const common = { name, notNull: field.min >= 1, checkName: checkName(table, name), fieldId: field.id, to: field.to, label, path };
  if (isRelationship(field)) return { ...common, sqlType: 'uuid', isArray: false, default: null, check: null };
  if (!isPrimitiveType(field.to)) {
    throw new Problem(409, `The field ${field.id} has an unknown type ${field.to}.`, [{ path: `${path}/to`, message: 'is neither a primitive type nor a model id' }]);
  }
  const sqlType = PRIMITIVE_SQL_TYPES[field.to];
  // jsonb holds a JSON array itself: it never becomes jsonb[].
  const isArray = isToMany(field) && sqlType !== 'jsonb';
  // A default expression is evaluated by the runtime on create (runtime/writes/defaults.ts): no SQL default.
  const literal = literalDefault(field.defaultValue);
  const defaultSql = literal === undefined || literal === null ? null : columnLiteral(literal, sqlType, isArray, `${path}/defaultValue`);
  return { ...common, sqlType, isArray, default: defaultSql, check: checkOf(field, sqlType, isArray, path) };
}

/** Enum, star-rating range and array size, and-ed into one expression (null when none applies). */
function checkOf(field: Field, sqlType: string, isArray: boolean, path: string): string | null {
  const col = quoteIdent(columnNameForField(field.id));
  const parts: string[] = [];
  if (field.enum && field.enum.length > 0) {
    const values = field.enum.map((v, i) => scalarLiteral(v, sqlType, `${path}/enum/${i}`));
    parts.push(isArray ? `${col} <@ array[${values.join(', ')}]::${sqlType}[]` : `${col} in (${values.join(', ')})`);
  }
  if (field.to === 'p_STAR_RATING') {
    parts.push(isArray ? `${col} <@ array[0, 1, 2, 3, 4, 5]::smallint[]` : `${col} between 0 and 5`);
  }
  if (isArray) {
    if (field.min > 1) parts.push(`cardinality(${col}) >= ${bound(field.min, path)}`);
    if (field.max !== null) parts.push(`cardinality(${col}) <= ${bound(field.max, path)}`);
  }
  if (parts.length === 0) return null;
  return parts.length === 1 ? parts[0] : parts.map((p) => `(${p})`).join(' and ');
}

function bound(n: number, path: string): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Problem(409, `The bound ${n} is not a whole number.`, [{ path, message: 'min and max must be whole numbers' }]);
  return String(n);
}
