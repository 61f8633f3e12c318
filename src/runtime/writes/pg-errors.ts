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
      return conflict('A record with this value already exists.', [{ path, message: 'must be unique' }]);
    case '22P02':
    case '22007':
    case '22008':
      return unprocessable('A value has the wrong form.', [{ path, message: (error as Error).message }]);
    default:
      return null;
  }
}
