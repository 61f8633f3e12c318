// A model's (or field's) access control for one caller and operation as one residual: the rules
// partially evaluated (expressions/partial.ts) and combined first-match-wins, as the runtime's
// rule SQL combines them (runtime/data/rule-sql.ts), but kept as a tree to be read or rewritten.
import { ExpressionBudgetError, partialEvaluate, type Residual } from '../expressions/index.ts';
import { FALSE, makeAnd, makeNot, makeOr, TRUE } from '../expressions/residual.ts';
import type { AccessControl } from '../definition/schema.ts';
import type { CompiledApp, CompiledModel } from '../runtime/compiled-app.ts';
import { compiledRules } from '../runtime/data/expressions.ts';

export type Operation = 'create' | 'read' | 'update' | 'delete';
export const OPERATIONS: readonly Operation[] = ['create', 'read', 'update', 'delete'];

/**
 * The stand-in id of "a signed-in user" when no data is read: comparisons with it are written
 * `auth.id` (render.ts). A uuid no record has (version nibble 4, all f).
 */
export const SIGNED_IN_ID = 'ffffffff-ffff-4fff-bfff-ffffffffffff';

export interface Known {
  auth: Record<string, unknown> | null;
  operation: Operation;
  now?: Date;
  env?: Record<string, string>;
}

/** One rule partially evaluated: its residual says where it matches (an evaluation error in a deny rule matches). */
export interface RuleResidual {
  index: number;
  access: 'allow' | 'deny';
  source: string;
  /** Where the rule matches; null: it does not compile (it never allows). */
  matches: Residual | null;
}

export function ruleResiduals(app: CompiledApp, model: CompiledModel, control: AccessControl, known: Known): RuleResidual[] {
  const values = { auth: known.auth, operation: known.operation, now: known.now ?? new Date(), env: known.env ?? {} };
  return compiledRules(app, model, control).map((rule, index) => {
    const deny = rule.access === 'deny';
    const partial = rule.compiled ? partialOrExhausted(rule.compiled, values, deny) : null;
    // A rule that cannot be evaluated: an allow rule never matches, a deny rule always does.
    const matches = partial?.ok ? partial.residual : deny ? TRUE : FALSE;
    return { index, access: rule.access, source: rule.source, matches: rule.compiled ? matches : null };
  });
}

/**
 * A rule whose evaluation exhausts its step budget on what is known refuses the request at run time
 * (400 naming it), so it never allows: read here as an evaluation error (an allow rule does not
 * match, a deny rule does) rather than failing the matrix, the advice or the publish that asks.
 */
function partialOrExhausted(compiled: NonNullable<ReturnType<typeof compiledRules>[number]['compiled']>, values: Parameters<typeof partialEvaluate>[1], deny: boolean) {
  try {
    return partialEvaluate(compiled, values, { errorAs: deny });
  } catch (error) {
    if (error instanceof ExpressionBudgetError) return { ok: false as const, message: error.message };
    throw error;
  }
}

/** First match decides, else `defaultAccess` (else `fallback`): where access is allowed. */
export function combined(rules: readonly RuleResidual[], control: AccessControl, fallback: 'allow' | 'deny'): Residual {
  let rest: Residual = (control.defaultAccess ?? fallback) === 'allow' ? TRUE : FALSE;
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i];
    const matches = rule.matches ?? (rule.access === 'deny' ? TRUE : FALSE);
    const negated = makeNot(matches);
    rest = rule.access === 'allow' ? makeOr([matches, rest], false) : makeAnd([negated.kind === 'error' ? FALSE : negated, rest], false);
  }
  return rest;
}

/** Where `caller` may do `operation` on `model`'s records. */
export function modelAccess(app: CompiledApp, model: CompiledModel, known: Known): Residual {
  return combined(ruleResiduals(app, model, model.accessControl, known), model.accessControl, 'deny');
}

/**
 * `r` with every comparison `record.<owner> == auth.id` taken as true (and `!=` as false): what
 * is left for the caller on their own records.
 */
export function assumingOwner(r: Residual, ownerField: string, authId: string): Residual {
  const isOwnerCompare = (node: Residual): boolean =>
    node.kind === 'compare' &&
    (node.op === '==' || node.op === '!=') &&
    ((node.left.kind === 'field' && node.left.name === ownerField && node.right.kind === 'value' && node.right.value === authId) ||
      (node.right.kind === 'field' && node.right.name === ownerField && node.left.kind === 'value' && node.left.value === authId));
  const rewrite = (node: Residual): Residual => {
    if (isOwnerCompare(node)) return node.kind === 'compare' && node.op === '==' ? TRUE : FALSE;
    if (node.kind === 'and') return makeAnd(node.items.map(rewrite), false);
    if (node.kind === 'or') return makeOr(node.items.map(rewrite), false);
    if (node.kind === 'not') {
      const inner = makeNot(rewrite(node.item));
      return inner.kind === 'error' ? FALSE : inner;
    }
    return node;
  };
  return rewrite(r);
}

/**
 * The field that says whose a record is: `id` on the user model itself, else the one to-one
 * relationship to the user model (the first, when there are several); null when none.
 */
export function ownerFieldOf(app: CompiledApp, model: CompiledModel): string | null {
  if (!app.userModel) return null;
  if (model.id === app.userModel.id) return 'id';
  const field = model.fields.find((f) => f.relation?.targetModelId === app.userModel!.id && !f.many);
  return field?.name ?? null;
}
