// Evaluation budget. The library (v8.0.0) has no step counter, so after a program is parsed and
// type-checked we instrument its syntax tree: every node gets an own `evaluate` that charges one
// step before running the node's real evaluator. This covers macro expansions (comprehension
// loops) too, because we instrument the nodes they expand to. In addition:
// - wall time is checked every 256 steps;
// - nodes that build values (`+`, calls, macros) have their result size bounded and pay for it
//   (one step per 64 elements/characters), so doubling strings or lists cannot exhaust memory;
// - once exhausted the budget stays exhausted: every later step throws, so the library's
//   error-absorbing `||`/`&&`/`exists` cannot swallow it, and `runWithBudget` re-checks at the end.
// Relies on ASTNode's public `meta` getter ({evaluate, alternate, macro}); tests guard this.
import type { ASTNode } from '@marcbachmann/cel-js';
import {
  DEFAULT_STEP_BUDGET,
  DEFAULT_TIME_BUDGET_MS,
  MAX_RESULT_LIST_LENGTH,
  MAX_RESULT_STRING_LENGTH,
} from './limits.ts';

export type BudgetErrorCode = 'step_budget' | 'time_budget' | 'size_limit';

export class BudgetExceededError extends Error {
  override name = 'BudgetExceededError';
  constructor(
    readonly code: BudgetErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface BudgetOptions {
  stepBudget?: number;
  timeBudgetMs?: number;
}

interface Budget {
  steps: number;
  maxSteps: number;
  deadline: number;
  untilClock: number;
  exceeded: BudgetExceededError | null;
}

// The library's evaluator signature: (evaluator, node, context) => value. Opaque to us.
type EvaluateFn = (ev: unknown, ast: unknown, ctx: unknown) => unknown;
interface NodeMeta {
  evaluate: EvaluateFn;
  alternate?: InstrumentableNode;
  macro?: { evaluate: EvaluateFn };
}
interface InstrumentableNode {
  op: string;
  args: unknown;
  meta: NodeMeta;
  evaluate: EvaluateFn;
}

let current: Budget | null = null;

function fail(b: Budget, error: BudgetExceededError): never {
  b.exceeded = error;
  throw error;
}

function charge(cost: number): void {
  const b = current;
  if (!b) return;
  if (b.exceeded) throw b.exceeded;
  b.steps += cost;
  if (b.steps > b.maxSteps) {
    fail(b, new BudgetExceededError('step_budget', `Evaluation exceeded its step budget (${b.maxSteps} steps)`));
  }
  b.untilClock -= cost;
  if (b.untilClock <= 0) {
    b.untilClock = 256;
    if (performance.now() > b.deadline) {
      fail(b, new BudgetExceededError('time_budget', 'Evaluation exceeded its time budget'));
    }
  }
}

function chargeResult(value: unknown): void {
  let size = 0;
  let limit = 0;
  let what = '';
  if (typeof value === 'string') {
    size = value.length;
    limit = MAX_RESULT_STRING_LENGTH;
    what = 'string';
  } else if (Array.isArray(value)) {
    size = value.length;
    limit = MAX_RESULT_LIST_LENGTH;
    what = 'list';
  } else if (value instanceof Uint8Array) {
    size = value.length;
    limit = MAX_RESULT_STRING_LENGTH;
    what = 'bytes value';
  } else {
    return;
  }
  if (size > limit) {
    const b = current;
    const error = new BudgetExceededError('size_limit', `Evaluation built a ${what} longer than ${limit}`);
    if (b) fail(b, error);
    throw error;
  }
  if (size >= 64) charge(size >> 6);
}

/** Ops whose result is newly built and may be large. */
const BUILDING_OPS = new Set(['+', 'call', 'rcall', 'comprehension']);

function isNode(value: unknown): value is InstrumentableNode {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { op?: unknown }).op === 'string' &&
    typeof (value as { evaluate?: unknown }).evaluate === 'function' &&
    typeof (value as { meta?: unknown }).meta === 'object'
  );
}

function isPlain(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Instruments every node reachable from the (already type-checked) root, including macro
 * expansions and constant alternates created by the checker. Returns the number of nodes.
 */
export function instrument(root: ASTNode): number {
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  let count = 0;
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item !== 'object' || item === null || seen.has(item)) continue;
    seen.add(item);
    if (Array.isArray(item)) {
      stack.push(...item);
    } else if (isNode(item)) {
      wrap(item);
      count++;
      stack.push(item.args, item.meta.alternate, item.meta.macro);
    } else if (isPlain(item)) {
      // Comprehension arguments ({iterable, init, step, ...}) and macro objects ({val, exp, ...}).
      stack.push(...Object.values(item));
    }
  }
  if (count === 0) throw new Error('expressions: cannot instrument this library version (no AST nodes found)');
  return count;
}

function wrap(node: InstrumentableNode): void {
  const meta = node.meta;
  const building = BUILDING_OPS.has(node.op);
  // Mirrors ASTNode.prototype.evaluate (alternate, then macro, then the op's evaluator), reading
  // meta at call time because type checking may replace meta.evaluate.
  node.evaluate = function evaluateWithBudget(ev: unknown, ast: unknown, ctx: unknown): unknown {
    charge(1);
    let result: unknown;
    if (meta.alternate) result = meta.alternate.evaluate(ev, meta.alternate, ctx);
    else if (meta.macro) result = meta.macro.evaluate(ev, meta.macro, ctx);
    else result = meta.evaluate.call(node, ev, ast, ctx);
    if (building) chargeResult(result);
    return result;
  };
}

/** Runs `fn` (a synchronous evaluation) under a fresh budget. */
export function runWithBudget<T>(fn: () => T, options: BudgetOptions = {}): T {
  const maxSteps = options.stepBudget ?? DEFAULT_STEP_BUDGET;
  const timeMs = options.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS;
  const budget: Budget = { steps: 0, maxSteps, deadline: performance.now() + timeMs, untilClock: 256, exceeded: null };
  const previous = current;
  current = budget;
  try {
    const result = fn();
    if (budget.exceeded) throw budget.exceeded;
    return result;
  } catch (error) {
    // The library may replace or combine errors (`a || b` with both failing); report the budget.
    throw budget.exceeded ?? error;
  } finally {
    current = previous;
  }
}
