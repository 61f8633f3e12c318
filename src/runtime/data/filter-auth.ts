// What a list filter may read of `auth` (issue 18). A filter is evaluated with `auth` known, so
// `auth.secret == 'x'` would tell, by the list being empty or not, a field of the caller's own
// record that its field rules hide from them. Such a filter is refused (400 naming the field), as
// one reading a hidden `record.<field>` is (rule-sql.ts, filterCondition).
import { evaluate, variableUse, type CompiledExpression } from '../../expressions/index.ts';
import type { CompiledApp, CompiledField, CompiledModel } from '../compiled-app.ts';
import { compiledRules, type RuleContext } from './expressions.ts';
import { fieldVisibility } from './rule-sql.ts';

/**
 * Whether the caller may read `field` of their own record: the field's rules in order, the first
 * matching one deciding, with `record` and `auth` both the caller's record. As on the read path,
 * a rule that errs (or does not compile) matches when it denies and not when it allows.
 */
function readableOnOwnRecord(app: CompiledApp, model: CompiledModel, field: CompiledField, ctx: RuleContext): boolean {
  const vars = { auth: ctx.auth, record: ctx.auth, operation: 'read', now: ctx.now, env: ctx.env ?? {} };
  for (const rule of compiledRules(app, model, field.accessControl)) {
    const deny = rule.access === 'deny';
    const result = rule.compiled ? evaluate(rule.compiled, vars) : null;
    const matches = result?.ok ? result.value === true : deny;
    if (matches) return !deny;
  }
  return (field.accessControl.defaultAccess ?? 'allow') === 'allow';
}

/**
 * The names of the user model's fields that `filter` reads through `auth` and the signed-in caller
 * may not read on their own record (every field, when the filter uses `auth` as a whole).
 */
export function hiddenAuthFields(app: CompiledApp, filter: CompiledExpression, ctx: RuleContext): string[] {
  const userModel = app.userModel;
  if (!userModel || !ctx.auth) return [];
  const use = variableUse(filter.ast, 'auth');
  const fields = use.whole ? userModel.fields : userModel.fields.filter((field) => use.members.has(field.name));
  if (fields.length === 0) return [];
  const visibility = fieldVisibility(app, userModel, { ...ctx, operation: 'read' });
  return fields
    .filter((field) => {
      const access = visibility.get(field.name) ?? { kind: 'visible' };
      if (access.kind === 'visible') return false;
      return access.kind === 'hidden' || !readableOnOwnRecord(app, userModel, field, ctx);
    })
    .map((field) => field.name);
}
