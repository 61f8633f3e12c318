import { unprocessable } from '../../errors.ts';

/** The least length of an end user's password, in characters (Unicode code points). */
export const MIN_PASSWORD = 8;

/**
 * Refuses a password shorter than MIN_PASSWORD characters. Counted in code points, as the
 * OpenAPI documents' `minLength` is (JSON Schema): in UTF-16 units four emoji would pass and
 * seven letters fail.
 */
export function checkPasswordLength(password: unknown): asserts password is string {
  if (typeof password !== 'string' || [...password].length < MIN_PASSWORD) {
    throw unprocessable('The password is too short.', [{ path: '/password', message: `needs at least ${MIN_PASSWORD} characters` }]);
  }
}
