// An expression that exhausts its evaluation budget (steps, time or size) is refused, never taken
// as "false": a list filter or an access rule evaluated in a request answers 400 naming the
// expression (ExpressionBudgetError, a Problem the HTTP layer sends as is), and at save time the
// record-independent parts of every expression (its maximal sub-expressions that read no
// variable, which evaluate the same in every request) are evaluated once under the budget
// (checkBudget), so a definition cannot keep one that never finishes.
import { Problem } from '../errors.ts';
import { compile, compileInEnvironment } from './compile.ts';
import { evaluateRaw, type EvaluationErrorCode } from './evaluate.ts';
import type { CompiledExpression } from './compile.ts';
import { nodeText } from './translate.ts';
import type { ExpressionContext } from './types.ts';
import { freeVariables, walk } from './walk.ts';

const BUDGET_CODES: ReadonlySet<string> = new Set<EvaluationErrorCode>(['step_budget', 'time_budget', 'size_limit']);

/** True for the evaluation error codes of an exhausted budget. */
export function isBudgetCode(code: string | undefined): boolean {
  return code !== undefined && BUDGET_CODES.has(code);
}

/** A filter or rule that exhausted its budget during a request: 400 naming it. */
export class ExpressionBudgetError extends Problem {
  readonly code: string;
  readonly source: string;

  constructor(compiled: Pick<CompiledExpression, 'scope' | 'source'>, code: string, reason: string) {
    const what = compiled.scope === 'filter' ? 'The filter' : compiled.scope === 'rule' ? 'The access rule' : `The ${compiled.scope} expression`;
    const detail = `${what} '${compiled.source}' cannot be evaluated: ${reason}. Simplify it (fewer or smaller iterations).`;
    super(400, detail, [{ path: compiled.scope === 'filter' ? '/filter' : '', message: detail }]);
    this.name = 'ExpressionBudgetError';
    this.code = code;
    this.source = compiled.source;
  }
}

/**
 * Evaluates the record-independent parts of `source` once: `{ok: false, message}` when one of
 * them exhausts the budget. Parts that fail otherwise (a division by zero) are left to the other
 * checks and to the request; an expression that does not compile is reported elsewhere.
 */
export function checkBudget(source: string, ctx: ExpressionContext): { ok: true } | { ok: false; message: string } {
  const result = compile(source, ctx);
  if (!result.ok) return { ok: true };
  const environment = result.compiled.environment;
  let failure: string | null = null;
  walk(result.compiled.ast, (node) => {
    if (failure !== null) return false;
    if (node.op === 'value' || node.op === 'id') return false;
    if ([...freeVariables(node)].some((name) => name !== 'cel')) return undefined;
    const text = nodeText(node);
    const part = compileInEnvironment(text, environment, true);
    if (part.ok) {
      const evaluated = evaluateRaw(part.compiled, {});
      if (!evaluated.ok && isBudgetCode(evaluated.code)) {
        failure = `its record-independent part '${text}' exhausts the evaluation budget (${evaluated.message}); simplify it`;
      }
    }
    return false;
  });
  return failure === null ? { ok: true } : { ok: false, message: failure };
}
