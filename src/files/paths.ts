import { badRequest } from '../errors.ts';

export const MAX_PATH_LENGTH = 1024;

// C0 controls, DEL and C1 controls.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Why `path` is not a file path (DESIGN §12), or null when it is one. */
export function pathTrouble(path: string): string | null {
  if (path.length < 1 || path.length > MAX_PATH_LENGTH) return `must be 1 to ${MAX_PATH_LENGTH} characters long`;
  if (CONTROL.test(path)) return 'must not contain control characters (NUL included)';
  if (path.includes('\\')) return 'must use "/" between segments, not backslashes';
  for (const segment of path.split('/')) {
    if (segment === '') return 'must not start or end with "/" nor contain an empty segment ("//")';
    // %2e%2e is ".." once some client or proxy decodes it again.
    const decoded = segment.replace(/%2e/gi, '.');
    if (decoded === '.' || decoded === '..') return 'must not contain a "." or ".." segment';
  }
  return null;
}

/** Throws 400 naming `pointer` when `path` is not a file path. */
export function checkPath(path: string, pointer = '/path'): string {
  const trouble = pathTrouble(path);
  if (trouble) throw badRequest(`The file path ${trouble}.`, [{ path: pointer, message: trouble }]);
  return path;
}

/** A list prefix follows the same character rules but may end with "/" or stop mid-segment. */
export function checkPrefix(prefix: string): string {
  if (prefix === '') return prefix;
  const trouble = pathTrouble(prefix.endsWith('/') ? `${prefix}x` : prefix);
  if (trouble) throw badRequest(`The prefix ${trouble}.`, [{ path: '/prefix', message: trouble }]);
  return prefix;
}
