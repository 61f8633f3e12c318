// Expressions of actions (bindParams, bindReturnValue): compiled once per definition and cached
// under its definitionKey, evaluated under the expression budget and the run's remaining time.
import {
  compile,
  definitionKey,
  DEFAULT_TIME_BUDGET_MS,
  evaluate,
  LruCache,
  type CompileResult,
  type ExpressionDefinition,
  type JsonValue,
} from '../../expressions/index.ts';
import type { ActionEffect } from '../../definition/schema.ts';
import { ActionError } from './errors.ts';

export type ActionScope = 'effect' | 'returnValue';

/** definitionKey → (scope|source → compiled). A few live definitions at a time per process. */
const programs = new LruCache<string, Map<string, CompileResult>>(128);

export function compiledExpression(definition: ExpressionDefinition, scope: ActionScope, source: string): CompileResult {
  const key = definitionKey(definition);
  let forDefinition = programs.get(key);
  if (!forDefinition) {
    forDefinition = new Map();
    programs.set(key, forDefinition);
  }
  const sourceKey = `${scope}|${source}`;
  let result = forDefinition.get(sourceKey);
  if (!result) {
    result = compile(source, { definition, scope });
    forDefinition.set(sourceKey, result);
  }
  return result;
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
    params[name] = evaluateExpression(definition, 'effect', source, vars, remainingMs(), `bindParams.${name} (${source})`);
  }
  return params;
}
