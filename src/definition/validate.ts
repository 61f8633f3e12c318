/** The whole validation of a definition: shape (400), then consistency (409). */
import { Problem } from '../errors.ts';
import { checkConsistency, type ConsistencyOptions } from './consistency.ts';
import type { AppDefinition } from './schema.ts';
import { validateShape } from './shape.ts';

export function validateDefinition(value: unknown, options: ConsistencyOptions = {}): AppDefinition {
  const def = validateShape(value);
  const errors = checkConsistency(def, options);
  if (errors.length > 0) throw new Problem(409, 'The definition is inconsistent.', errors);
  return def;
}
