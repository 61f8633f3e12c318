/**
 * A source value (SQL literal, COPY text, CSV cell, JSON value) as the JSON value a field of its
 * type takes on the write path: `'t'` → true, `'2022-01-24 21:40:19+00'` → an ISO date-time,
 * `{Trailers,"Deleted Scenes"}` → an array. The write path's own validation (types, enums,
 * required) runs afterwards; this only translates notations.
 */
import type { CompiledField } from '../runtime/compiled-app.ts';
import type { SourceValue } from './sql-rows.ts';
import { isMissingCell } from './text-rows.ts';

/** Thrown for a value that has no meaning for the field's type; the row is rejected with it. */
export class ValueError extends Error {
  override name = 'ValueError';
}

const TRUE = new Set(['t', 'true', '1', 'yes', 'y', 'on']);
const FALSE = new Set(['f', 'false', '0', 'no', 'n', 'off']);

/** `{a,"b c",NULL}` (PostgreSQL's array literal) → its elements. */
export function pgArray(text: string): Array<string | null> {
  const inner = text.trim().replace(/^\{|\}$/g, '');
  if (inner === '') return [];
  const out: Array<string | null> = [];
  let i = 0;
  while (i <= inner.length) {
    if (inner[i] === '"') {
      let value = '';
      i++;
      while (i < inner.length && inner[i] !== '"') {
        if (inner[i] === '\\') i++;
        value += inner[i] ?? '';
        i++;
      }
      out.push(value);
      i += 2;
    } else {
      let end = inner.indexOf(',', i);
      if (end < 0) end = inner.length;
      const value = inner.slice(i, end).trim();
      out.push(value === 'NULL' ? null : value);
      i = end + 1;
    }
  }
  return out;
}

/** `1962/2/18` → `1962-02-18`: dates written with slashes or without leading zeros. */
function isoDay(text: string): string {
  return text.replace(/^(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?=$|[T\s])/, (_all, y: string, m: string, d: string) => `${y}-${m.padStart(2, '0')}-${d.padStart(2, '0')}`);
}

/** `2022-01-24 21:40:19.5+00` / `2022-01-24T21:40:19` (taken as UTC) / `2022-01-24` → ISO 8601. */
function dateTime(text: string): string | null {
  const value = isoDay(text.trim());
  if (/^0000-00-00/.test(value)) return null; // MySQL's zero date: no date
  const match = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i.exec(value);
  if (!match) throw new ValueError('must be a date-time');
  const zone = match[3] === undefined ? 'Z' : /^[+-]\d{2}$/.test(match[3]) ? `${match[3]}:00` : match[3];
  const time = match[2] ?? '00:00:00';
  return `${match[1]}T${time}${zone}`;
}

function primitive(to: string, value: SourceValue): unknown {
  if (value === null) return null;
  switch (to) {
    case 'p_NUMBER':
    case 'p_STAR_RATING': {
      if (typeof value === 'number') return value;
      if (typeof value === 'boolean') return value ? 1 : 0;
      const text = value.trim();
      if (text === '') return null;
      const number = Number(text);
      if (Number.isNaN(number)) throw new ValueError('must be a number');
      return number;
    }
    case 'p_BOOLEAN': {
      if (typeof value === 'boolean') return value;
      const text = String(value).trim().toLowerCase();
      if (TRUE.has(text)) return true;
      if (FALSE.has(text)) return false;
      if (text === '') return null;
      throw new ValueError('must be true or false');
    }
    case 'p_DATE': {
      const text = isoDay(String(value).trim());
      if (/^0000-00-00/.test(text) || text === '') return null;
      return /^\d{4}-\d{2}-\d{2}/.test(text) ? text.slice(0, 10) : text;
    }
    case 'p_DATE_TIME':
      return typeof value === 'string' ? (value.trim() === '' ? null : dateTime(value)) : value;
    case 'p_TIME':
      return typeof value === 'string' ? value.trim().replace(/[+-]\d{2}(?::?\d{2})?$/, '') : value;
    case 'p_ADDRESS':
    case 'p_CURRENCY_AMOUNT':
      if (typeof value !== 'string') return value;
      try {
        return JSON.parse(value);
      } catch {
        throw new ValueError('must be a JSON object');
      }
    default:
      return typeof value === 'string' ? value : String(value);
  }
}

/**
 * The JSON value `field` (a primitive field) takes from a source value. A spreadsheet cell
 * (`cell`) that marks a missing value is null, unless the field is text that must hold it: an
 * enum listing it, or a required text field (a specification that read the marker as text).
 */
export function fieldValue(field: CompiledField, value: SourceValue | SourceValue[], cell = false): unknown {
  if (value === null || value === undefined) return null;
  if (cell && typeof value === 'string' && isMissingCell(value)) {
    const keep = field.to === 'p_TEXT' && !field.many && value.trim() !== '' && (field.enum?.includes(value) || field.required);
    if (!keep) return null;
  }
  if (!field.many) {
    if (Array.isArray(value)) throw new ValueError('must be one value, not a list');
    return primitive(field.to, value);
  }
  let items: SourceValue[];
  if (Array.isArray(value)) items = value;
  else if (typeof value === 'string' && value.trim().startsWith('{')) items = pgArray(value);
  else if (typeof value === 'string' && value.trim().startsWith('[')) {
    try {
      items = JSON.parse(value) as SourceValue[];
    } catch {
      throw new ValueError('must be a list');
    }
  } else if (typeof value === 'string') items = value === '' ? [] : value.split(','); // MySQL SET: 'a,b'
  else items = [value];
  return items.map((item) => primitive(field.to, item));
}

/** A key as the key map holds it: the same text for `1`, `'1'` and 1. */
export function keyOf(value: SourceValue | SourceValue[]): string | null {
  if (value === null || value === undefined) return null;
  return String(value).trim();
}
