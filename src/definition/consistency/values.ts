/** Whether a literal value (an enum value, a default) fits a primitive field type. */
import type { PrimitiveType } from '../schema.ts';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const PHONE = /^\+[1-9]\d{1,14}$/;

/** Primitive types whose values are objects (jsonb): no enum for them. */
export const STRUCTURED_TYPES: ReadonlySet<string> = new Set(['p_ADDRESS', 'p_CURRENCY_AMOUNT']);

/** A sentence describing what `type` expects, for messages. */
export function expectedOf(type: PrimitiveType): string {
  switch (type) {
    case 'p_BOOLEAN':
      return 'a boolean';
    case 'p_NUMBER':
      return 'a number';
    case 'p_STAR_RATING':
      return 'a whole number from 0 to 5';
    case 'p_DATE':
      return 'a date YYYY-MM-DD';
    case 'p_TIME':
      return 'a time HH:MM[:SS]';
    case 'p_DATE_TIME':
      return 'an ISO 8601 date-time';
    case 'p_PHONE_NUMBER':
      return 'an E.164 phone number (+ and digits)';
    case 'p_ADDRESS':
      return 'an address object';
    case 'p_CURRENCY_AMOUNT':
      return 'an object {amount, currency}';
    default:
      return 'a string';
  }
}

/** True when one value (not an array of them) fits the type. */
export function fitsPrimitive(type: PrimitiveType, value: unknown): boolean {
  switch (type) {
    case 'p_BOOLEAN':
      return typeof value === 'boolean';
    case 'p_NUMBER':
      return typeof value === 'number' && Number.isFinite(value);
    case 'p_STAR_RATING':
      return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 5;
    case 'p_DATE':
      return typeof value === 'string' && DATE.test(value) && !Number.isNaN(Date.parse(value));
    case 'p_TIME':
      return typeof value === 'string' && TIME.test(value);
    case 'p_DATE_TIME':
      return typeof value === 'string' && DATE_TIME.test(value) && !Number.isNaN(Date.parse(value));
    case 'p_PHONE_NUMBER':
      return typeof value === 'string' && PHONE.test(value);
    case 'p_ADDRESS':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'p_CURRENCY_AMOUNT':
      return (
        typeof value === 'object' &&
        value !== null &&
        typeof (value as { amount?: unknown }).amount === 'number' &&
        typeof (value as { currency?: unknown }).currency === 'string'
      );
    default:
      return typeof value === 'string';
  }
}
