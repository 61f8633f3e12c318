import { Problem, conflict, unprocessable } from '../../errors.ts';
import type { CompiledModel } from '../compiled-app.ts';

/** Turns a constraint violation from either driver into the problem the caller should see. */
export function problemFromDatabase(error: unknown, model: CompiledModel): Problem | null {
  const code = (error as { code?: string }).code;
  const detail = String((error as { detail?: string; message?: string }).detail ?? (error as Error).message ?? '');
  const column = (error as { column?: string }).column;
  const field = model.fields.find((f) => f.column !== null && (f.column === column || detail.includes(`(${f.column})`)));
  const path = field ? `/${field.name}` : '';
  switch (code) {
    case '23503':
      return unprocessable('A related record does not exist.', [{ path, message: 'refers to a record that does not exist' }]);
    case '23502':
      return unprocessable('A required value is missing.', [{ path, message: 'is required' }]);
    case '23514':
      return unprocessable('A value is not allowed.', [{ path, message: 'is not an allowed value' }]);
    case '23505':
      return uniqueViolation(detail, model);
    case '22P02':
    case '22007':
    case '22008':
      return unprocessable('A value has the wrong form.', [{ path, message: (error as Error).message }]);
    default:
      return null;
  }
}

/** A unique index refused the write: 409 naming each of its fields (`Key (c1, c2)=(…) already exists.`). */
function uniqueViolation(detail: string, model: CompiledModel): Problem {
  // The key names columns, or expressions over them (`lower(email)`): each field whose column it names, in key order.
  const key = /Key \((.*)\)=\(/.exec(detail)?.[1] ?? '';
  const named = model.fields.filter((f) => f.column !== null && new RegExp(`(^|[^\\w])${f.column}($|[^\\w])`).test(key));
  const names = named.sort((a, b) => key.indexOf(a.column!) - key.indexOf(b.column!)).map((f) => f.name);
  if (names.length === 0) return conflict('A record with this value already exists.', [{ path: '', message: 'must be unique' }]);
  const together = names.length > 1 ? ` (${names.join(', ')} together)` : '';
  return conflict(
    `A ${model.name} with the same ${names.join(', ')} already exists.`,
    names.map((name) => ({ path: `/${name}`, message: `must be unique${together}` })),
  );
}
