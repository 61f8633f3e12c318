// What a variable or secret may be called and hold (DESIGN §11).
import { badRequest, conflict } from '../errors.ts';

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

/**
 * Names read only from secrets: where the service connects with the app's credentials and sends
 * its account mails (and their reset links). A variable, which an editor can set, must not decide it.
 */
export const SECRET_ONLY_NAMES: ReadonlySet<string> = new Set(['SMTP_URL']);

/** 409 when a variable is given a name that only a secret may have. */
export function checkVariableName(name: string): void {
  if (!SECRET_ONLY_NAMES.has(name)) return;
  const message = 'is read only from a secret: set it with PUT …/secrets/' + name + ' (an admin may), not as a variable';
  throw conflict(`${name} ${message}.`, [{ path: '/name', message }]);
}

export function checkValue(value: string): void {
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > MAX_VALUE_BYTES) {
    throw badRequest(`The value is ${bytes} bytes; a value holds at most ${MAX_VALUE_BYTES} bytes (64 KiB).`, [
      { path: '/value', message: `must be at most ${MAX_VALUE_BYTES} bytes (UTF-8), is ${bytes}` },
    ]);
  }
}
