// Expressions of actions (bindParams, bindReturnValue): compiled once per definition and source,
// evaluated under the expression budget and the run's remaining time.
import {
  compile,
  DEFAULT_TIME_BUDGET_MS,
  evaluate,
  type CompileResult,
  type ExpressionDefinition,
  type JsonValue,
} from '../../expressions/index.ts';
import type { ActionEffect } from '../../definition/schema.ts';
import { ActionError } from './errors.ts';
import { cachedSecretPlacementTrouble } from '../../secrets/placement.ts';

export type ActionScope = 'effect' | 'returnValue';

/** Compiled once per definition, scope and source (the expressions module keeps them). */
export function compiledExpression(definition: ExpressionDefinition, scope: ActionScope, source: string): CompileResult {
  return compile(source, { definition, scope });
}

/** Evaluates one expression; a failure becomes an ActionError naming `what`. */
export function evaluateExpression(
  definition: ExpressionDefinition,
  scope: ActionScope,
  source: string,
  vars: Readonly<Record<string, unknown>>,
  remainingMs: number,
  what: string,
): JsonValue {
  const compiled = compiledExpression(definition, scope, source);
  if (!compiled.ok) {
    // Checked at save time, so this means a definition that skipped validation.
    throw new ActionError(500, 'invalid_expression', `${what}: ${compiled.message}`);
  }
  const timeBudgetMs = Math.max(1, Math.min(DEFAULT_TIME_BUDGET_MS, remainingMs));
  const result = evaluate(compiled.compiled, vars, { timeBudgetMs });
  if (!result.ok) throw new ActionError(500, result.code, `${what} failed: ${result.message}`);
  return result.value;
}

/** `params` with every `bindParams` expression evaluated over it (bound values win). */
export function bindParams(
  definition: ExpressionDefinition,
  effect: ActionEffect,
  vars: Readonly<Record<string, unknown>>,
  remainingMs: () => number,
): Record<string, unknown> {
  const params: Record<string, unknown> = { ...(effect.params ?? {}) };
  for (const [name, source] of Object.entries(effect.bindParams ?? {})) {
    // Checked at save too; this refuses a version saved before the rule, before anything is evaluated.
    const compiled = compiledExpression(definition, 'effect', source);
    const trouble = compiled.ok ? cachedSecretPlacementTrouble(compiled.compiled.ast, effect.effect, name) : null;
    if (trouble) throw new ActionError(500, 'secret_placement', `bindParams.${name} ${trouble}`);
    params[name] = evaluateExpression(definition, 'effect', source, vars, remainingMs(), `bindParams.${name} (${source})`);
  }
  return params;
}
