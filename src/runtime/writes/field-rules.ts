// Field rules on the write path (DESIGN §5): a field whose rules deny the caller is refused when
// the request sets it. Rules that fold to a constant refuse at once; rules that depend on the
// record are checked in SQL on the row (the existing row for an update, the new one for a create),
// inside the write's transaction, so a refusal changes nothing.
import type { Executor } from '../../storage/db.ts';
import { sql, type RawBuilder } from 'kysely';
import { Problem, type ProblemDetail } from '../../errors.ts';
import { ident } from '../../storage/sql.ts';
import type { CompiledModel, CompiledApp } from '../compiled-app.ts';
import { fieldVisibility, type RuleContext } from '../data/rule-sql.ts';

function refuse(model: CompiledModel, names: string[]): Problem {
  const errors: ProblemDetail[] = names.map((name) => ({ path: `/${name}`, message: 'may not be written by you' }));
  return new Problem(403, `You may not set ${names.map((n) => `'${n}'`).join(', ')} of this ${model.name}.`, errors);
}

/** The written fields' rules for the caller: the fields refused outright, and those decided on the row. */
export interface FieldWriteRules {
  denied: string[];
  onRow: Array<[string, RawBuilder<unknown>]>;
}

export function fieldWriteRules(app: CompiledApp, model: CompiledModel, ctx: RuleContext, names: string[]): FieldWriteRules {
  const rules: FieldWriteRules = { denied: [], onRow: [] };
  if (names.length === 0) return rules;
  const access = fieldVisibility(app, model, ctx);
  for (const name of names) {
    const rule = access.get(name);
    if (rule?.kind === 'hidden') rules.denied.push(name);
    else if (rule?.kind === 'row') rules.onRow.push([name, rule.condition('t')]);
  }
  return rules;
}

/** The 403 naming the fields `names` of this record the caller may not write. */
export function refuseFields(model: CompiledModel, names: string[]): Problem {
  return refuse(model, names);
}

/**
 * Throws 403 naming every field of `names` the caller (`ctx.auth`, `ctx.operation`) may not write
 * on record `id`. Callers that bypass the rules do not call this.
 */
export async function checkFieldWrites(
  executor: Executor,
  app: CompiledApp,
  model: CompiledModel,
  ctx: RuleContext,
  names: string[],
  id: string,
): Promise<void> {
  await checkRowFieldRules(executor, app, model, fieldWriteRules(app, model, ctx, names), id);
}

/** Throws 403 for the denied fields, else for those whose row rule does not hold on record `id`. */
export async function checkRowFieldRules(executor: Executor, app: CompiledApp, model: CompiledModel, rules: FieldWriteRules, id: string): Promise<void> {
  const { denied, onRow } = rules;
  if (denied.length > 0) throw refuse(model, denied);
  if (onRow.length === 0) return;
  const columns = onRow.map(([, condition], i) => sql`coalesce((${condition}), false) as ${ident(`f${i}`)}`);
  const result = await sql<Record<string, boolean>>`
    select ${sql.join(columns)} from ${ident(app.schema, model.table)} t where t.id = ${id}`.execute(executor);
  const row = result.rows[0] ?? {};
  const refused = onRow.filter((_, i) => row[`f${i}`] !== true).map(([name]) => name);
  if (refused.length > 0) throw refuse(model, refused);
}
