// The rule checks explain reports: each rule of the model's access control for the operation,
// in order, until one decides (first match wins). A rule partially evaluated with what the
// request knows is `true`/`false` when that decides it; otherwise it depends on the record:
// `per-row` for a list, and decided on the record (by the runtime's own rule SQL) for one record.
import { sql } from 'kysely';
import type { Residual } from '../expressions/index.ts';
import type { Executor } from '../storage/db.ts';
import { ident } from '../storage/sql.ts';
import type { CompiledApp, CompiledModel } from '../runtime/compiled-app.ts';
import { condSql, truth, UntranslatableError } from '../runtime/data/residual-sql.ts';
import { readPlainRecord } from '../runtime/writes/plain-record.ts';
import { residualFields, residualText } from './render.ts';
import { ruleResiduals, type Known, type Operation } from './residuals.ts';

export interface Check {
  model: string;
  operation: Operation | 'validation';
  ruleIndex: number;
  expression: string;
  result: boolean | 'per-row';
  values: Record<string, unknown>;
}

/** Whether residual `r` is `want` on record `id` (an error counts as neither), asked with the runtime's rule SQL. */
async function holdsOn(executor: Executor, app: CompiledApp, model: CompiledModel, id: string, r: Residual, want: boolean, known: Known): Promise<boolean> {
  let condition;
  try {
    condition = condSql(truth(r, want, { app, model, alias: 't', known: { now: known.now ?? new Date(), env: known.env ?? {} } }));
  } catch (error) {
    if (error instanceof UntranslatableError) return false;
    throw error;
  }
  const result = await sql<{ ok: boolean }>`select exists(select 1 from ${ident(app.schema, model.table)} t where t.id = ${id} and (${condition})) as ok`.execute(executor);
  return result.rows[0]?.ok === true;
}

function authValues(known: Known): Record<string, unknown> {
  return known.auth ? { 'auth.id': known.auth.id ?? null } : { auth: null };
}

/**
 * The checks of `model`'s rules for `known.operation`. `record`: the record they are about
 * (one-record operations), its stored values read for `values`; `given`: the fields a create
 * sends (shown, and its rules judged on the record the request would make, by the caller).
 */
export async function modelChecks(
  executor: Executor,
  app: CompiledApp,
  model: CompiledModel,
  known: Known,
  target: { id: string } | null,
): Promise<Check[]> {
  const checks: Check[] = [];
  const stored = target ? await readPlainRecord(executor, app, model, target.id) : undefined;
  for (const rule of ruleResiduals(app, model, model.accessControl, known)) {
    const base = { model: model.name, operation: known.operation, ruleIndex: rule.index, expression: rule.source };
    const values = authValues(known);
    if (rule.matches === null) {
      checks.push({ ...base, result: false, values });
      continue;
    }
    let matched: boolean | 'per-row';
    if (rule.matches.kind === 'const') {
      matched = rule.matches.value;
    } else if (stored) {
      for (const name of residualFields(rule.matches)) values[`record.${name}`] = stored[name] ?? null;
      // An allow rule matches where it is true; a deny rule wherever it is not false (an error denies).
      matched = rule.access === 'allow'
        ? await holdsOn(executor, app, model, stored.id, rule.matches, true, known)
        : !(await holdsOn(executor, app, model, stored.id, rule.matches, false, known));
    } else {
      matched = 'per-row';
      values.residual = residualText(rule.matches);
    }
    checks.push({ ...base, result: matched, values });
    // First match decides: the rules after it are not consulted.
    if (matched === true) break;
  }
  return checks;
}
