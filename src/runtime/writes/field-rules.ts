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
  if (names.length === 0) return;
  const access = fieldVisibility(app, model, ctx);
  const denied: string[] = [];
  const onRow: Array<[string, RawBuilder<unknown>]> = [];
  for (const name of names) {
    const rule = access.get(name);
    if (rule?.kind === 'hidden') denied.push(name);
    else if (rule?.kind === 'row') onRow.push([name, rule.condition('t')]);
  }
  if (denied.length > 0) throw refuse(model, denied);
  if (onRow.length === 0) return;
  const columns = onRow.map(([, condition], i) => sql`coalesce((${condition}), false) as ${ident(`f${i}`)}`);
  const result = await sql<Record<string, boolean>>`
    select ${sql.join(columns)} from ${ident(app.schema, model.table)} t where t.id = ${id}`.execute(executor);
  const row = result.rows[0] ?? {};
  const refused = onRow.filter((_, i) => row[`f${i}`] !== true).map(([name]) => name);
  if (refused.length > 0) throw refuse(model, refused);
}
