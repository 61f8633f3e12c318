/** The whole validation of a definition: shape (400), then consistency (409). */
import { Problem } from '../errors.ts';
import { checkConsistency, type ConsistencyOptions } from './consistency.ts';
import type { ExpressionMemo } from './consistency/incremental.ts';
import type { AppDefinition } from './schema.ts';
import { validateShape } from './shape.ts';

export function validateDefinition(value: unknown, options: ConsistencyOptions = {}): AppDefinition {
  const def = validateShape(value);
  const errors = checkConsistency(def, options);
  if (errors.length > 0) throw new Problem(409, 'The definition is inconsistent.', errors);
  return def;
}

/**
 * Validates `def`, the sealed copy of a definition just validated (definition/versioning/sealed.ts),
 * for what the validation learns of its sealed models: the next edit then checks only what it
 * changes (issue 28). Whether it is valid was the other validation's answer.
 */
export function primeValidation(def: AppDefinition, memo: ExpressionMemo): void {
  try {
    validateShape(def);
    checkConsistency(def, { memo });
  } catch {
    // Only a head start: the next edit validates in full what this did not learn.
  }
}
