/**
 * SQL literals for DDL, where bind parameters cannot be used (DEFAULT, CHECK,
 * backfills). Strict on purpose: only strings, finite numbers and booleans, each
 * rendered as a typed literal so PostgreSQL itself validates the text.
 */
import { Problem } from '../../errors.ts';

/**
 * A string as an SQL literal. Plain `'…'` with quotes doubled; when the text holds a
 * backslash, an escape string `E'…'` with backslashes doubled too, which reads the
 * same whatever `standard_conforming_strings` says. NUL cannot be stored: refused.
 */
export function quoteLiteral(text: string): string {
  if (text.includes('\u0000')) throw new TypeError('An SQL literal cannot hold the NUL character.');
  const quoted = text.replace(/'/g, "''");
  if (!text.includes('\\')) return `'${quoted}'`;
  return `E'${quoted.replace(/\\/g, '\\\\')}'`;
}

/** `$tag$body$tag$` with a tag (`$name$`, `$name2$`, …) that the body does not contain. */
export function dollarQuoted(body: string, name: string): string {
  let tag = `$${name}$`;
  for (let n = 2; body.includes(tag); n++) tag = `$${name}${n}$`;
  return `${tag}${body}${tag}`;
}

/** A plain SQL type name as the plans use them (`double precision`, `text`); never user text. */
const SQL_TYPE = /^[a-z][a-z ]*$/;

function typeName(sqlType: string): string {
  if (!SQL_TYPE.test(sqlType)) throw new TypeError(`Not an SQL type name: ${sqlType}`);
  return sqlType;
}

/** One scalar value as a literal of `sqlType`; throws a 409 Problem at `path` for anything else. */
export function scalarLiteral(value: unknown, sqlType: string, path: string): string {
  const type = typeName(sqlType);
  if (type === 'jsonb') {
    if (value === undefined) throw new Problem(409, 'A JSON value is missing.', [{ path, message: 'is missing' }]);
    return `${quoteLiteral(JSON.stringify(value))}::jsonb`;
  }
  if (typeof value === 'boolean') {
    if (type !== 'boolean' && type !== 'text') throw badValue(value, type, path);
    return type === 'boolean' ? String(value) : quoteLiteral(String(value));
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw badValue(value, type, path);
    if (type !== 'double precision' && type !== 'smallint') throw badValue(value, type, path);
    return `${quoteLiteral(String(value))}::${type}`;
  }
  if (typeof value === 'string') {
    if (type === 'boolean' || type === 'double precision' || type === 'smallint') throw badValue(value, type, path);
    return type === 'text' ? quoteLiteral(value) : `${quoteLiteral(value)}::${type}`;
  }
  throw badValue(value, type, path);
}

/** A value for a column: an array literal (`array[…]::text[]`) when `isArray`, else a scalar. */
export function columnLiteral(value: unknown, sqlType: string, isArray: boolean, path: string): string {
  if (!isArray) return scalarLiteral(value, sqlType, path);
  const items = Array.isArray(value) ? value : [value];
  const type = typeName(sqlType);
  if (items.length === 0) return `'{}'::${type}[]`;
  return `array[${items.map((item, i) => scalarLiteral(item, type, `${path}/${i}`)).join(', ')}]::${type}[]`;
}

function badValue(value: unknown, sqlType: string, path: string): Problem {
  const shown = JSON.stringify(value) ?? String(value);
  return new Problem(409, `The value ${shown.slice(0, 80)} cannot be stored as ${sqlType}.`, [
    { path, message: `${shown.slice(0, 80)} is not a valid ${sqlType} value` },
  ]);
}
