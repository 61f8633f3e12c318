// Evaluation of compiled programs: inputs converted (inputs.ts), run under a budget (budget.ts),
// result made JSON-safe (serialize.ts). Errors come back as values: a rule that errors denies,
// a validation that errors rejects (DESIGN §5); the caller decides.
import { BudgetExceededError, runWithBudget, type BudgetErrorCode, type BudgetOptions } from './budget.ts';
import type { CompiledExpression } from './compile.ts';
import { prepareVariables } from './inputs.ts';
import { toJson } from './serialize.ts';
import type { JsonValue } from './types.ts';

export type EvaluateOptions = BudgetOptions;

export type EvaluationErrorCode = 'evaluation_error' | 'result_type' | BudgetErrorCode;

export type EvaluationResult =
  | { ok: true; value: JsonValue }
  | { ok: false; code: EvaluationErrorCode; message: string };

export type RawEvaluationResult =
  | { ok: true; value: unknown }
  | { ok: false; code: EvaluationErrorCode; message: string };

/** Evaluates with plain JS variables (numbers as doubles, ISO strings for timestamp fields). */
export function evaluate(
  compiled: CompiledExpression,
  vars: Readonly<Record<string, unknown>>,
  options: EvaluateOptions = {},
): EvaluationResult {
  const raw = evaluateRaw(compiled, vars, options);
  if (!raw.ok) return raw;
  try {
    return { ok: true, value: toJson(raw.value) };
  } catch (error) {
    return { ok: false, code: 'evaluation_error', message: (error as Error).message };
  }
}

/** Like `evaluate` but returns the library's value (BigInt, Date, Map, model values...). */
export function evaluateRaw(
  compiled: CompiledExpression,
  vars: Readonly<Record<string, unknown>>,
  options: EvaluateOptions = {},
): RawEvaluationResult {
  let value: unknown;
  try {
    const context = prepareVariables(compiled.environment, vars);
    value = runWithBudget(() => compiled.program(context), options);
  } catch (error) {
    if (error instanceof BudgetExceededError) return { ok: false, code: error.code, message: error.message };
    const e = error as { summary?: string; message?: string };
    return { ok: false, code: 'evaluation_error', message: e.summary ?? String(e.message ?? error).split('\n')[0] };
  }
  if (value instanceof Promise) {
    // No async functions are registered; guard anyway so a promise never leaks out as a value.
    value.catch(() => undefined);
    return { ok: false, code: 'evaluation_error', message: 'Asynchronous evaluation is not supported' };
  }
  if (!compiled.anyResult && compiled.environment.spec.result === 'bool' && typeof value !== 'boolean') {
    return { ok: false, code: 'result_type', message: `Expression must return a boolean, got ${typeof value}` };
  }
  return { ok: true, value };
}
