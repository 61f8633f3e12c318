// Per-request half of partial evaluation (DESIGN §5): evaluates the record-free parts of a
// rule/filter template with what the request knows and simplifies what is left.
//   auth != null && record.user == auth.id   anonymous → {const false}
//                                            signed in → {compare ==, field user, value 'u1'}
//   operation == 'read' || record.x == 1     read      → {const true}
// An evaluation error stands for `errorAs`, except an exhausted budget: that throws
// ExpressionBudgetError (400 naming the expression), never an empty list or a silent deny.
import type { BudgetOptions } from './budget.ts';
import { ExpressionBudgetError, isBudgetCode } from './budget-check.ts';
import { compile, type CompiledExpression } from './compile.ts';
import { evaluateRaw } from './evaluate.ts';
import { makeAnd, makeNot, makeOr, settle, type Folded, type Residual, type ResidualOperand, type ResidualValue } from './residual.ts';
import { toPlain } from './serialize.ts';
import { planOf, UntranslatableError, type Template, type TemplateOperand } from './translate.ts';
import type { ExpressionContext } from './types.ts';

/** What the request knows before querying. Missing: auth → anonymous, now → current time, env → {}. */
export interface KnownValues {
  auth?: unknown;
  operation?: string;
  now?: Date | string;
  env?: Readonly<Record<string, unknown>>;
}

export interface PartialOptions extends BudgetOptions {
  /**
   * What an evaluation error stands for: false (default) for allow rules and filters, where an
   * error means "does not match"; true for deny rules, where an error means deny (DESIGN §5).
   */
  errorAs?: boolean;
  /** Needed when `expression` is a source string. */
  context?: ExpressionContext;
}

export type PartialResult = { ok: true; residual: Residual } | { ok: false; message: string };

type FoldedOperand = ResidualOperand | { kind: 'error'; message: string };

export function partialEvaluate(
  expression: CompiledExpression | string,
  known: KnownValues,
  options: PartialOptions = {},
): PartialResult {
  let compiled: CompiledExpression;
  if (typeof expression === 'string') {
    if (!options.context) return { ok: false, message: 'partialEvaluate: a context is needed to compile a source string' };
    const result = compile(expression, options.context);
    if (!result.ok) return result;
    compiled = result.compiled;
  } else {
    compiled = expression;
  }
  if (compiled.environment.spec.result !== 'bool') {
    return { ok: false, message: `Only boolean scopes (rule, filter) can be partially evaluated, not '${compiled.scope}'` };
  }
  let template: Template;
  try {
    template = planOf(compiled);
  } catch (error) {
    if (error instanceof UntranslatableError) return { ok: false, message: error.message };
    throw error;
  }
  const folder = new Folder(compiled, known, options);
  return { ok: true, residual: settle(folder.fold(template), folder.errorAs) };
}

class Folder {
  readonly errorAs: boolean;
  readonly #vars: Record<string, unknown>;
  readonly #budget: BudgetOptions;
  readonly #compiled: CompiledExpression;

  constructor(compiled: CompiledExpression, known: KnownValues, options: PartialOptions) {
    this.#compiled = compiled;
    this.errorAs = options.errorAs ?? false;
    this.#vars = { auth: known.auth ?? null, operation: known.operation, now: known.now, env: known.env };
    this.#budget = { stepBudget: options.stepBudget, timeBudgetMs: options.timeBudgetMs };
  }

  fold(t: Template): Folded {
    switch (t.kind) {
      case 'and':
        return makeAnd(t.items.map((i) => this.fold(i)), this.errorAs);
      case 'or':
        return makeOr(t.items.map((i) => this.fold(i)), this.errorAs);
      case 'not':
        return makeNot(this.fold(t.item));
      case 'test': {
        const v = this.operand(t.operand);
        if (v.kind === 'error') return v;
        if (v.kind === 'value' && typeof v.value === 'boolean') return { kind: 'const', value: v.value };
        return { kind: 'error', message: 'Condition is not a boolean' };
      }
      case 'compare': {
        const left = this.operand(t.left);
        const right = this.operand(t.right);
        if (left.kind === 'error') return left;
        if (right.kind === 'error') return right;
        return { kind: 'compare', op: t.op, left, right };
      }
      case 'in': {
        const item = this.operand(t.item);
        const list = this.operand(t.list);
        if (item.kind === 'error') return item;
        if (list.kind === 'error') return list;
        return { kind: 'in', item, list };
      }
      case 'call': {
        const target = this.operand(t.target);
        const arg = this.operand(t.arg);
        if (target.kind === 'error') return target;
        if (arg.kind === 'error') return arg;
        return { kind: 'call', name: t.name, target, args: [arg] };
      }
    }
  }

  operand(o: TemplateOperand): FoldedOperand {
    switch (o.kind) {
      case 'field':
      case 'value':
        return o;
      case 'failed':
        if (isBudgetCode(o.code)) throw new ExpressionBudgetError(this.#compiled, o.code!, o.message);
        return { kind: 'error', message: o.message };
      case 'size': {
        const target = this.operand(o.target);
        return target.kind === 'error' ? target : { kind: 'call', name: 'size', target, args: [] };
      }
      case 'param': {
        const result = evaluateRaw(o.program, this.#vars, this.#budget);
        if (!result.ok && isBudgetCode(result.code)) throw new ExpressionBudgetError(this.#compiled, result.code, result.message);
        if (!result.ok) return { kind: 'error', message: result.message };
        return { kind: 'value', value: toPlain(result.value) as ResidualValue };
      }
    }
  }
}
