// Access rules and list filters as SQL conditions (DESIGN §5). Each rule's criteria are partially
// evaluated with what the request knows (auth, operation, now, env); what is left depends on the
// record and becomes SQL: fields → columns, values → bound parameters, never per-row calls.
//
// Rules apply in order, the first matching allow/deny decides, else `defaultAccess`. As SQL that
// is `CASE WHEN r1 THEN a1 WHEN r2 THEN a2 ... ELSE d END`, written as the equivalent boolean
//   allow rule:  r OR rest        deny rule:  (r is false) AND rest
// with constants folded, so `auth != null && record.user == auth.id` becomes `"t"."f_user" = $1`
// for a signed-in caller and `none` (no query at all) for an anonymous one.
import type { RawBuilder } from 'kysely';
import { partialEvaluate, variableUse } from '../../expressions/index.ts';
import { reusedSql } from '../../storage/raw-compiler.ts';
import { badRequest } from '../../errors.ts';
import type { AccessControl } from '../../definition/schema.ts';
import { ANONYMOUS_CALLER, CallerCache } from '../caller-cache.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { compiledRules, compileFor, knownValues, type RuleContext } from './expressions.ts';
import { RELATED_ALIAS } from './columns.ts';
import { hiddenAuthFields } from './filter-auth.ts';
import { isWriteOnly } from './write-only.ts';
import { condSql, FALSE, junction, TRUE, truth, UntranslatableError, type Cond, type RelatedScope, type RowScope } from './residual-sql.ts';

export type { RuleContext } from './expressions.ts';

export type Condition = { kind: 'all' } | { kind: 'none' } | { kind: 'where'; sql: RawBuilder<unknown> };

/** A field's readability for this request. `row`: readable where the condition holds on the row `alias`. */
export type FieldAccess = { kind: 'visible' } | { kind: 'hidden' } | { kind: 'row'; condition: (alias: string) => RawBuilder<unknown> };

function rowScope(app: CompiledApp, model: CompiledModel, ctx: RuleContext, alias: string): RowScope {
  return { app, model, alias, known: { now: ctx.now, env: ctx.env ?? {} } };
}

/** The first-match combination of an access control's rules, as a folded condition on the row. */
function decide(app: CompiledApp, model: CompiledModel, control: AccessControl, fallback: 'allow' | 'deny', ctx: RuleContext, alias: string): Cond {
  const rules = compiledRules(app, model, control);
  const scope = rowScope(app, model, ctx, alias);
  const known = knownValues(ctx);
  // Built from the last rule backwards: `rest` is what decides when this rule does not match.
  let rest: Cond = (control.defaultAccess ?? fallback) === 'allow' ? TRUE : FALSE;
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i];
    const deny = rule.access === 'deny';
    // An evaluation error means deny (DESIGN §5): a deny rule that errs matches, an allow rule does not.
    const residual = rule.compiled ? partialEvaluate(rule.compiled, known, { errorAs: deny }) : null;
    // For an allow rule: where it matches (true); for a deny rule: where it does not (false).
    let decisive: Cond;
    try {
      decisive = residual?.ok ? truth(residual.residual, !deny, scope) : FALSE;
    } catch (error) {
      if (!(error instanceof UntranslatableError)) throw error;
      decisive = FALSE; // refused at save time; here it never allows
    }
    rest = deny ? junction('and', [decisive, rest]) : junction('or', [decisive, rest]);
  }
  return rest;
}

function toCondition(cond: Cond): Condition {
  if (cond.kind === 'const') return cond.value ? { kind: 'all' } : { kind: 'none' };
  return { kind: 'where', sql: condSql(cond) };
}

/** Per access control: whether no rule reads `now` or `env`, so that its condition follows from `auth` and the operation alone. */
const authOnly = new WeakMap<AccessControl, boolean>();

export function readsAuthAndOperationOnly(app: CompiledApp, model: CompiledModel, control: AccessControl): boolean {
  let answer = authOnly.get(control);
  if (answer === undefined) {
    answer = compiledRules(app, model, control).every((rule) => {
      if (!rule.compiled) return true;
      return ['now', 'env'].every((name) => {
        const use = variableUse(rule.compiled!.ast, name);
        return !use.whole && use.members.size === 0;
      });
    });
    authOnly.set(control, answer);
  }
  return answer;
}

/** Conditions kept per caller (caller-cache.ts). */
const conditionsByCaller = new CallerCache<Condition>();

/** The model's access rule for `ctx.operation` as a condition on the row aliased `alias`. */
export function accessCondition(app: CompiledApp, model: CompiledModel, ctx: RuleContext, alias: string): Condition {
  const control = model.accessControl;
  const build = () => toCondition(decide(app, model, control, 'deny', ctx, alias));
  if (!readsAuthAndOperationOnly(app, model, control)) return build();
  return conditionsByCaller.get(ctx.auth ?? ANONYMOUS_CALLER, model, `${ctx.operation} ${alias}`, () => {
    const condition = build();
    if (condition.kind === 'where') reusedSql(condition.sql);
    return condition;
  });
}

/**
 * Per field: visible, hidden, or visible on the rows where a condition holds. A field's rules
 * default to allow (most fields have no rules: `{rules: []}`); `defaultAccess` overrides that.
 */
export function fieldVisibility(app: CompiledApp, model: CompiledModel, ctx: RuleContext): Map<string, FieldAccess> {
  const out = new Map<string, FieldAccess>();
  for (const field of model.fields) {
    const control = field.accessControl;
    if (control.rules.length === 0) {
      out.set(field.name, control.defaultAccess === 'deny' ? { kind: 'hidden' } : { kind: 'visible' });
      continue;
    }
    const probe = decide(app, model, control, 'allow', ctx, 't');
    if (probe.kind === 'const') out.set(field.name, probe.value ? { kind: 'visible' } : { kind: 'hidden' });
    else out.set(field.name, { kind: 'row', condition: (alias) => condSql(decide(app, model, control, 'allow', ctx, alias)) });
  }
  return out;
}

/** For a list filter: which records of `target` the caller may read, as `related` of a row scope wants it. */
function readableRelated(app: CompiledApp, ctx: RuleContext): (target: CompiledModel) => RelatedScope {
  const readCtx: RuleContext = { ...ctx, operation: 'read' };
  return (target) => {
    const probe = accessCondition(app, target, readCtx, RELATED_ALIAS);
    if (probe.kind !== 'where') return probe.kind;
    return (alias) => {
      const condition = alias === RELATED_ALIAS ? probe : accessCondition(app, target, readCtx, alias);
      return condition.kind === 'where' ? condition.sql : condSql(condition.kind === 'all' ? TRUE : FALSE);
    };
  };
}

/**
 * The `filter` query parameter (a CEL boolean over `record`) as a condition on `alias`.
 * A filter that does not parse, type-check or translate is a 400 naming `/filter`; so is one
 * reading a field the caller may not see, of the record or of their own `auth` (it would reveal
 * the hidden values). Relationships count and test only the related records the caller may read.
 * `bypassRules`: an administrator or the system, who see every field and record.
 */
export function filterCondition(app: CompiledApp, model: CompiledModel, filterSource: string, ctx: RuleContext, alias: string, bypassRules = false): Condition {
  const fail = (message: string) => badRequest(`The filter is not valid: ${message}`, [{ path: '/filter', message }]);
  const compiled = compileFor(app, model, 'filter', filterSource);
  if (!compiled.ok) throw fail(compiled.message);
  if (!bypassRules) {
    const hidden = hiddenAuthFields(app, compiled.compiled, ctx);
    if (hidden.length > 0) throw fail(`the field 'auth.${hidden[0]}' cannot be filtered on`);
  }
  const residual = partialEvaluate(compiled.compiled, knownValues(ctx), { errorAs: false });
  if (!residual.ok) throw fail(residual.message);
  const visibility = bypassRules ? new Map<string, FieldAccess>() : fieldVisibility(app, model, ctx);
  for (const name of referencedFields(residual.residual)) {
    const access = visibility.get(name);
    // A write-only field is never read, so never filtered on either (the filter would tell its value).
    if ((access && access.kind !== 'visible') || isWriteOnly(model, name)) throw fail(`the field '${name}' cannot be filtered on`);
  }
  const scope = rowScope(app, model, ctx, alias);
  if (!bypassRules) scope.related = readableRelated(app, ctx);
  try {
    return toCondition(truth(residual.residual, true, scope));
  } catch (error) {
    if (error instanceof UntranslatableError) throw fail(error.message);
    throw error;
  }
}

type AnyNode = { kind: string } & Record<string, unknown>;

/** The record fields a residual reads. */
function referencedFields(node: AnyNode, out = new Set<string>()): Set<string> {
  if (node.kind === 'field') out.add(node.name as string);
  if (node.kind === 'value') return out;
  for (const value of Object.values(node)) {
    const children = Array.isArray(value) ? value : [value];
    for (const child of children) {
      if (child && typeof child === 'object' && typeof (child as AnyNode).kind === 'string' && !(child instanceof Date)) referencedFields(child as AnyNode, out);
    }
  }
  return out;
}
