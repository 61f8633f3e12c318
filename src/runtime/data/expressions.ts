// The runtime's bridge to src/expressions: one expression definition per compiled app, and the
// rules of each model (and field) compiled once and kept beside the compiled app.
import { compile, type CompiledExpression, type ExpressionDefinition, type Scope } from '../../expressions/index.ts';
import type { AccessControl } from '../../definition/schema.ts';
import type { CompiledApp, CompiledField, CompiledModel } from '../compiled-app.ts';

/** What the request knows before querying (DESIGN §5). */
export interface RuleContext {
  auth: Record<string, unknown> | null;
  operation: 'read' | 'create' | 'update' | 'delete';
  now: Date;
  env?: Record<string, string>;
}

/** A rule compiled for its model; `compiled` is null when the criteria do not compile (it then never allows). */
export interface CompiledRule {
  access: 'allow' | 'deny';
  source: string;
  compiled: CompiledExpression | null;
}

const definitions = new WeakMap<CompiledApp, ExpressionDefinition>();
const ruleCache = new WeakMap<AccessControl, CompiledRule[]>();
const computedCache = new WeakMap<CompiledField, CompiledExpression | null>();

/** The models as the expressions module sees them; built once per compiled app (its types are cached by content). */
export function expressionDefinition(app: CompiledApp): ExpressionDefinition {
  let definition = definitions.get(app);
  if (!definition) {
    definition = { models: app.definition.models, userModelId: app.definition.userModelId ?? null };
    definitions.set(app, definition);
  }
  return definition;
}

export function compileFor(app: CompiledApp, model: CompiledModel, scope: Scope, source: string) {
  return compile(source, { definition: expressionDefinition(app), scope, modelId: model.id });
}

/** The rules of a model's or a field's access control, compiled in the `rule` scope of `model`. */
export function compiledRules(app: CompiledApp, model: CompiledModel, control: AccessControl): CompiledRule[] {
  let rules = ruleCache.get(control);
  if (!rules) {
    rules = control.rules.map((rule) => {
      const result = compileFor(app, model, 'rule', rule.criteria);
      return { access: rule.access, source: rule.criteria, compiled: result.ok ? result.compiled : null };
    });
    ruleCache.set(control, rules);
  }
  return rules;
}

/** A computed field's expression, compiled in the `computed` scope; null when it does not compile. */
export function compiledComputed(app: CompiledApp, model: CompiledModel, field: CompiledField): CompiledExpression | null {
  if (field.computed === undefined) return null;
  let compiled = computedCache.get(field);
  if (compiled === undefined) {
    const result = compileFor(app, model, 'computed', field.computed);
    compiled = result.ok ? result.compiled : null;
    computedCache.set(field, compiled);
  }
  return compiled;
}

/** The variables the request knows, in the form `partialEvaluate`/`evaluate` take. */
export function knownValues(ctx: Pick<RuleContext, 'auth' | 'operation' | 'now' | 'env'>) {
  return { auth: ctx.auth, operation: ctx.operation, now: ctx.now, env: ctx.env ?? {} };
}
