// What a variable or secret may be called and hold (DESIGN §11).
import { badRequest } from '../errors.ts';

export const NAME_PATTERN = '^[A-Z][A-Z0-9_]{0,63}$';
const NAME = new RegExp(NAME_PATTERN);

/** Values are strings of at most 64 KiB (UTF-8 bytes). */
export const MAX_VALUE_BYTES = 64 * 1024;

export function checkName(name: string): void {
  if (!NAME.test(name)) {
    throw badRequest(`The name '${name.slice(0, 80)}' is not a variable or secret name.`, [
      { path: '/name', message: `must match ${NAME_PATTERN}: a capital letter, then up to 63 capitals, digits or underscores` },
    ]);
  }
}

export function checkValue(value: string): void {
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > MAX_VALUE_BYTES) {
    throw badRequest(`The value is ${bytes} bytes; a value holds at most ${MAX_VALUE_BYTES} bytes (64 KiB).`, [
      { path: '/value', message: `must be at most ${MAX_VALUE_BYTES} bytes (UTF-8), is ${bytes}` },
    ]);
  }
}
