// Model access rules on the write path, as SQL conditions on the row aliased `t` (DESIGN §5).
import type { Executor } from '../../storage/db.ts';
import { sql, type RawBuilder } from 'kysely';
import { forbidden, notFound } from '../../errors.ts';
import { ident } from '../../storage/sql.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { authOf, bypassesRules, type Caller } from '../caller.ts';
import { accessCondition } from '../data/rule-sql.ts';
import { currentEnv } from '../../secrets/current-env.ts';

export type RuleOperation = 'read' | 'create' | 'update' | 'delete';

/** The model's rule for `operation` on alias `t`: `true` for administrators and the system, null when it excludes every row. */
export function ruleCondition(app: CompiledApp, model: CompiledModel, caller: Caller, operation: RuleOperation): RawBuilder<unknown> | null {
  if (bypassesRules(caller)) return sql`true`;
  const condition = accessCondition(app, model, { auth: authOf(caller), operation, now: new Date(), env: currentEnv() }, 't');
  if (condition.kind === 'none') return null;
  return condition.kind === 'all' ? sql`true` : condition.sql;
}

/** The rule as a boolean SQL expression that is never NULL (a rule that errs on a row denies). */
export function ruleTruth(app: CompiledApp, model: CompiledModel, caller: Caller, operation: RuleOperation): RawBuilder<unknown> {
  const condition = ruleCondition(app, model, caller, operation);
  return condition ? sql`coalesce((${condition}), false)` : sql`false`;
}

export async function ruleHolds(executor: Executor, app: CompiledApp, model: CompiledModel, id: string, condition: RawBuilder<unknown>): Promise<boolean> {
  const result = await sql<{ ok: boolean }>`
    select exists(select 1 from ${ident(app.schema, model.table)} t where t.id = ${id} and (${condition})) as ok`.execute(executor);
  return result.rows[0]?.ok === true;
}

/**
 * Why a record cannot be changed: 404 when the caller may not even read it (exactly as a missing
 * one), 403 when they can read it but the rule for `operation` does not let them change it.
 */
export async function refusal(executor: Executor, app: CompiledApp, model: CompiledModel, id: string, caller: Caller, operation: 'update' | 'delete') {
  const readable = ruleCondition(app, model, caller, 'read');
  if (readable && (await ruleHolds(executor, app, model, id, readable))) {
    return forbidden(`You may not ${operation} this ${model.name}.`);
  }
  return notFound(`${model.name} ${id} was not found.`, '/id');
}
