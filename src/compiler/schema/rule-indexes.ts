// The indexes access rules need, made without being asked: a rule comparing a stored field with
// the caller's id (`record.ownerId == auth.id`) becomes `"t"."f_…" = $1` in every request of a
// signed-in user, which without an index reads the whole table. Relationship columns are indexed
// already (plan.ts); this adds the plain columns such comparisons read. Found by partial
// evaluation of the rule (expressions/) with a stand-in id, so only real comparisons count.
import { compile, ExpressionBudgetError, partialEvaluate, type CompiledExpression, type Residual } from '../../expressions/index.ts';
import type { AppDefinition, Model } from '../../definition/schema.ts';
import { isRelationship } from '../../definition/relationships.ts';

/** A stand-in caller id: a uuid no record has. */
const STAND_IN = 'ffffffff-ffff-4fff-bfff-fffffffffffe';

function comparedWithStandIn(r: Residual, out: Set<string>): void {
  if (r.kind === 'and' || r.kind === 'or') for (const item of r.items) comparedWithStandIn(item, out);
  else if (r.kind === 'not') comparedWithStandIn(r.item, out);
  else if (r.kind === 'compare' && r.op === '==') {
    const [field, value] = r.left.kind === 'field' ? [r.left, r.right] : [r.right, r.left];
    if (field.kind === 'field' && value.kind === 'value' && value.value === STAND_IN) out.add(field.name);
  }
}

/** The ids of `model`'s stored, non-relationship fields its rules compare with `auth.id`. */
export function ownerComparedFieldIds(def: Pick<AppDefinition, 'models'> & { userModelId?: string }, model: Model): string[] {
  const names = new Set<string>();
  for (const rule of model.accessControl.rules) {
    const compiled = compile(rule.criteria, { definition: { models: def.models, userModelId: def.userModelId ?? null }, scope: 'rule', modelId: model.id });
    if (!compiled.ok) continue;
    for (const operation of ['read', 'create', 'update', 'delete']) {
      const partial = standInResidual(compiled.compiled, operation, rule.access === 'deny');
      if (partial?.ok) comparedWithStandIn(partial.residual, names);
    }
  }
  return model.fields.filter((f) => names.has(f.name) && f.computed === undefined && !isRelationship(f)).map((f) => f.id);
}

/**
 * The rule for the stand-in caller; null when its evaluation exhausts the step budget (such a rule
 * refuses at run time, so it compares nothing worth an index, and must never fail a migration).
 */
function standInResidual(compiled: CompiledExpression, operation: string, deny: boolean) {
  try {
    return partialEvaluate(compiled, { auth: { id: STAND_IN }, operation, now: new Date(), env: {} }, { errorAs: deny });
  } catch (error) {
    if (error instanceof ExpressionBudgetError) return null;
    throw error;
  }
}
