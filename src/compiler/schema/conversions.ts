/**
 * The USING expression of a column type change (`alter column … type … using …`).
 * Conversions are strict: a value that would not convert, or would lose
 * information, makes the statement fail (so the dry run refuses the migration with
 * 409) instead of being turned into NULL or rounded. A failing value is reported by
 * casting an explanatory text, e.g. `invalid input syntax for type integer: "not a whole day: …"`.
 *
 * | from → to               | USING                                             |
 * |-------------------------|---------------------------------------------------|
 * | anything → text         | `c::text`; timestamptz as ISO 8601 UTC; jsonb `c #>> '{}'` |
 * | text → number, smallint, boolean, date, timestamptz, time, uuid | `nullif(btrim(c), '')::T` (bad text fails) |
 * | text → jsonb            | `c::jsonb` (text holding JSON; other text fails)  |
 * | number → smallint       | `c::text::smallint` (4.5 fails; range by CHECK)   |
 * | number, smallint → boolean | `c <> 0`                                        |
 * | boolean → number, smallint | `c::int::T`                                     |
 * | smallint → number       | `c::double precision`                             |
 * | date → timestamptz      | midnight UTC                                      |
 * | timestamptz → date      | only values at midnight UTC; others fail          |
 * | one → many              | `array_remove(array[conv(c)], null)`              |
 * | many → one              | `conv(c[1])`; more than one value fails           |
 * | many → many             | array casts: `T[]→text[]`, `text[]→T[]`, number[] ↔ smallint[] |
 * Anything else (e.g. number → date, jsonb → number, time ↔ timestamptz) is refused
 * at plan time with 409.
 */
import { Problem } from '../../errors.ts';
import { quoteIdent } from '../../storage/sql.ts';
import { quoteLiteral } from './literals.ts';
import type { ColumnPlan } from './types.ts';

type Convert = (expr: string) => string;

/**
 * An expression of `type` that always fails, naming the value: the message cannot
 * parse as an integer (`invalid input syntax for type integer: "not a whole day: …"`);
 * the outer cast only gives the branch the column's type.
 */
const failWith = (message: string, expr: string, type: string): string =>
  `cast(cast(${quoteLiteral(`${message}: `)} || (${expr})::text as integer)::text as ${type})`;

const parseText = (type: string): Convert => (e) => `nullif(btrim(${e}), '')::${type}`;

const SCALAR: Readonly<Record<string, Convert>> = {
  'double precision>text': (e) => `(${e})::text`,
  'boolean>text': (e) => `(${e})::text`,
  'date>text': (e) => `to_char(${e}, 'YYYY-MM-DD')`,
  'timestamptz>text': (e) => `to_char((${e}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  'time>text': (e) => `(${e})::text`,
  'smallint>text': (e) => `(${e})::text`,
  'jsonb>text': (e) => `(${e}) #>> '{}'`,
  'uuid>text': (e) => `(${e})::text`,
  'text>double precision': parseText('double precision'),
  'text>smallint': parseText('smallint'),
  'text>boolean': parseText('boolean'),
  'text>date': parseText('date'),
  'text>timestamptz': parseText('timestamptz'),
  'text>time': parseText('time'),
  'text>uuid': parseText('uuid'),
  'text>jsonb': (e) => `(${e})::jsonb`,
  'double precision>smallint': (e) => `(${e})::text::smallint`,
  'double precision>boolean': (e) => `(${e}) <> 0`,
  'smallint>boolean': (e) => `(${e}) <> 0`,
  'boolean>double precision': (e) => `(${e})::int::double precision`,
  'boolean>smallint': (e) => `(${e})::int::smallint`,
  'smallint>double precision': (e) => `(${e})::double precision`,
  'date>timestamptz': (e) => `(${e})::timestamp at time zone 'UTC'`,
  'timestamptz>date': (e) =>
    `case when ((${e}) at time zone 'UTC')::time = '00:00' then ((${e}) at time zone 'UTC')::date else ${failWith('not a whole day', e, 'date')} end`,
};

/** Array-to-array element conversions that PostgreSQL's array casts do strictly. */
function arrayCast(from: string, to: string): Convert | undefined {
  if (to === 'text') return (e) => `(${e})::text[]`;
  if (from === 'text') return (e) => `(${e})::${to}[]`;
  if (from === 'double precision' && to === 'smallint') return (e) => `(${e})::text[]::smallint[]`;
  if (from === 'smallint' && to === 'double precision') return (e) => `(${e})::double precision[]`;
  return undefined;
}

const same: Convert = (e) => e;

/**
 * The USING expression taking column `from` to the type of `to` (same column name),
 * or null when the SQL type is unchanged. Throws a 409 Problem for a pair without a
 * safe conversion.
 */
export function usingExpression(from: ColumnPlan, to: ColumnPlan): string | null {
  if (from.sqlType === to.sqlType && from.isArray === to.isArray) return null;
  const c = quoteIdent(to.name);
  const scalar = from.sqlType === to.sqlType ? same : SCALAR[`${from.sqlType}>${to.sqlType}`];
  if (from.isArray && to.isArray) {
    const cast = arrayCast(from.sqlType, to.sqlType);
    if (cast) return cast(c);
  } else if (scalar && !from.isArray && to.isArray) {
    return `array_remove(array[${scalar(c)}], null)::${to.sqlType}[]`;
  } else if (scalar && from.isArray && !to.isArray) {
    return `case when cardinality(${c}) > 1 then ${failWith('more than one value', c, to.sqlType)} else ${scalar(`${c}[1]`)} end`;
  } else if (scalar) {
    return scalar(c);
  }
  const shown = (col: ColumnPlan) => `${col.sqlType}${col.isArray ? '[]' : ''}`;
  throw new Problem(409, `${to.label} cannot be converted from ${shown(from)} to ${shown(to)}.`, [
    { path: `${to.path}/to`, message: `existing values of type ${shown(from)} have no safe conversion to ${shown(to)}; add a new field instead` },
  ]);
}
