import { unprocessable, type ProblemDetail } from '../../errors.ts';
import { isUuid } from '../../tools/ids.ts';
import { APP_FILE_KEY } from '../../files/app-files.ts';
import type { CompiledField, CompiledModel } from '../compiled-app.ts';

/** A validated write: column values of the model's own table, and relation sets stored elsewhere. */
export interface ValidatedWrite {
  /** Field → value, checked and normalised (date-times as ISO strings); null clears. */
  values: Map<CompiledField, unknown>;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** The most values one write may set in an array or to-many field: checking 50,000 ids took 10 s. */
export const MAX_WRITE_ARRAY = 1000;

/** `Date.parse` rolls 2030-02-30 over to March 2; a date must name a day of the calendar. */
function isCalendarDate(value: string): boolean {
  const time = Date.parse(`${value.slice(0, 10)}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === value.slice(0, 10);
}
const TIME = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?$/;
const E164 = /^\+[1-9]\d{1,14}$/;
const CURRENCY = /^[A-Z]{3}$/;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Checks one value against a primitive type; returns the value to store or an error message. */
function fail(message: string): { ok: false; message: string } {
  return { ok: false, message };
}

function primitiveValue(to: string, value: unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  switch (to) {
    case 'p_TEXT':
      return typeof value === 'string' ? { ok: true, value } : fail('must be a string');
    case 'p_NUMBER':
      return typeof value === 'number' && Number.isFinite(value) ? { ok: true, value } : fail('must be a finite number');
    case 'p_BOOLEAN':
      return typeof value === 'boolean' ? { ok: true, value } : fail('must be true or false');
    case 'p_STAR_RATING':
      return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 5 ? { ok: true, value } : fail('must be a whole number from 0 to 5');
    case 'p_DATE':
      return typeof value === 'string' && DATE.test(value) && isCalendarDate(value)
        ? { ok: true, value }
        : fail('must be a date YYYY-MM-DD');
    case 'p_DATE_TIME': {
      if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T/.test(value) || !isCalendarDate(value)) return fail('must be an ISO 8601 date-time');
      const time = Date.parse(value);
      return Number.isNaN(time) ? fail('must be an ISO 8601 date-time') : { ok: true, value: new Date(time).toISOString() };
    }
    case 'p_TIME':
      return typeof value === 'string' && TIME.test(value) ? { ok: true, value } : fail('must be a time HH:MM or HH:MM:SS');
    case 'p_PHONE_NUMBER':
      return typeof value === 'string' && E164.test(value) ? { ok: true, value } : fail('must be a phone number in E.164 form, e.g. +14155550123');
    case 'p_LINK':
      return typeof value === 'string' && isHttpUrl(value) ? { ok: true, value } : fail('must be an http(s) URL');
    case 'p_IMAGE':
    case 'p_VIDEO':
    case 'p_FILE':
      // The key of a file uploaded to POST /files (that it exists is checked with the write: file-keys.ts), or an https URL.
      if (typeof value === 'string' && value.startsWith('https://')) return isHttpUrl(value) ? { ok: true, value } : fail('must be a valid https URL');
      return typeof value === 'string' && APP_FILE_KEY.test(value)
        ? { ok: true, value }
        : fail('must be an https URL or the key of a file uploaded to POST /files');
    case 'p_ADDRESS':
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? { ok: true, value } : fail('must be an object');
    case 'p_CURRENCY_AMOUNT': {
      const amount = value as { amount?: unknown; currency?: unknown } | null;
      if (!amount || typeof amount !== 'object' || typeof amount.amount !== 'number' || !Number.isFinite(amount.amount)) {
        return fail('must be {amount: number, currency: "ISO 4217 code"}');
      }
      if (typeof amount.currency !== 'string' || !CURRENCY.test(amount.currency)) return fail('currency must be a 3-letter ISO 4217 code');
      return { ok: true, value: { amount: amount.amount, currency: amount.currency } };
    }
    default:
      return fail(`has an unknown type ${to}`);
  }
}

function checkOne(field: CompiledField, value: unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  if (field.relation) return typeof value === 'string' && isUuid(value) ? { ok: true, value } : { ok: false, message: 'must be the id (uuid) of a record' };
  const checked = primitiveValue(field.to, value);
  if (checked.ok && field.enum && !field.enum.includes(value)) {
    return { ok: false, message: `must be one of ${field.enum.map((v) => JSON.stringify(v)).join(', ')}` };
  }
  return checked;
}

/**
 * One present value of `field` checked as a write checks it (null, arrays and their bounds,
 * types, enums): the value to store, or the problems, each naming its path. Also the data
 * import's per-field check (imports/row-shape.ts), so both refuse the same values.
 */
export function checkFieldValue(field: CompiledField, value: unknown): { ok: true; value: unknown } | { ok: false; errors: ProblemDetail[] } {
  const path = `/${field.name}`;
  if (value === null) {
    if (field.required) return { ok: false, errors: [{ path, message: 'is required and cannot be null' }] };
    return { ok: true, value: field.many ? [] : null };
  }
  if (field.many) {
    if (!Array.isArray(value)) return { ok: false, errors: [{ path, message: 'must be an array' }] };
    if (value.length > MAX_WRITE_ARRAY) return { ok: false, errors: [{ path, message: `holds at most ${MAX_WRITE_ARRAY} values in one write (${value.length} sent)` }] };
    const errors: ProblemDetail[] = [];
    if (field.max !== null && value.length > field.max) errors.push({ path, message: `holds at most ${field.max} values` });
    if (value.length < field.min) errors.push({ path, message: `needs at least ${field.min} values` });
    const items: unknown[] = [];
    value.forEach((item, index) => {
      const checked = checkOne(field, item);
      if (checked.ok) items.push(checked.value);
      else errors.push({ path: `${path}/${index}`, message: checked.message });
    });
    if (errors.length > 0) return { ok: false, errors };
    return { ok: true, value: field.relation ? [...new Set(items)] : items };
  }
  const checked = checkOne(field, value);
  return checked.ok ? checked : { ok: false, errors: [{ path, message: checked.message }] };
}

/**
 * Validates a create (`mode: 'create'`, defaults applied, required fields enforced)
 * or a partial update. Every problem is collected and reported at once as 422,
 * each naming its field by JSON pointer.
 */
export function validateWrite(
  model: CompiledModel,
  body: unknown,
  mode: 'create' | 'update',
  /** On create: the value of a field's default expression, or undefined (see defaults.ts). */
  expressionDefault?: (field: CompiledField) => unknown,
): ValidatedWrite {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw unprocessable('The body must be a JSON object of field values.', [{ path: '', message: 'must be an object' }]);
  }
  const input = body as Record<string, unknown>;
  const errors: ProblemDetail[] = [];
  const values = new Map<CompiledField, unknown>();
  for (const name of Object.keys(input)) {
    const field = model.fieldsByName.get(name);
    if (name === 'id') errors.push({ path: '/id', message: 'is assigned by the server' });
    else if (!field) errors.push({ path: `/${name}`, message: `${model.name} has no field '${name}'` });
    else if (field.computed !== undefined) errors.push({ path: `/${name}`, message: 'is computed and read-only' });
  }
  for (const field of model.fields) {
    if (field.computed !== undefined) continue;
    const present = Object.hasOwn(input, field.name);
    let value = present ? input[field.name] : undefined;
    if (!present && mode === 'create') {
      if (field.defaultValue !== undefined) value = structuredClone(field.defaultValue);
      else if (field.defaultExpression !== undefined && expressionDefault) value = expressionDefault(field) ?? undefined;
    }
    if (value === undefined) {
      if (mode === 'create' && field.required) errors.push({ path: `/${field.name}`, message: 'is required' });
      continue;
    }
    const checked = checkFieldValue(field, value);
    if (checked.ok) values.set(field, checked.value);
    else errors.push(...checked.errors);
  }
  if (errors.length > 0) throw unprocessable(`The ${model.name} is not valid.`, errors);
  return { values };
}
