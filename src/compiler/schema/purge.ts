/**
 * `planPurge`: the statements dropping what earlier versions stored and the current
 * definition no longer has (the `retained` items of migrations). The caller names
 * the model or field ids to purge and passes the earlier definitions, newest first,
 * so the compiler knows where each id was stored. Ids still in the definition are
 * refused with 409: a purge never touches data the current version uses. A dropped column takes
 * the earlier search columns reading it along (cascade); the current one never reads it.
 */
import { Problem, type ProblemDetail } from '../../errors.ts';
import type { AppDefinition } from '../../definition/schema.ts';
import { qualified, q } from './ddl.ts';
import { planSchema } from './plan.ts';
import type { MigrationPlan, MigrationStep, SchemaPlan } from './types.ts';

type Definition = Pick<AppDefinition, 'models'>;

export function planPurge(def: Definition, appId: string, ids: readonly string[], history: readonly Definition[]): MigrationPlan {
  const current = planSchema(def, appId);
  const inUse = new Set(def.models.flatMap((m) => [m.id, ...m.fields.map((f) => f.id)]));
  const errors: ProblemDetail[] = [];
  ids.forEach((id, i) => {
    if (inUse.has(id)) errors.push({ path: `/ids/${i}`, message: `${id} is still in the definition; remove it and publish first` });
  });
  if (errors.length > 0) throw new Problem(409, 'Only models and fields removed from the definition can be purged.', errors);

  const currentTables = new Set([...current.tables, ...current.joinTables].map((t) => t.name));
  const former = history.map((h) => planSchema(h, appId));
  const steps: MigrationStep[] = [];
  const seen = new Set<string>();
  const push = (sql: string, summary: string, path: string) => {
    if (seen.has(sql)) return;
    seen.add(sql);
    steps.push({ sql, summary, path });
  };
  ids.forEach((id, i) => {
    const path = `/ids/${i}`;
    const found = former.find((plan) => stores(plan, id));
    if (!found) {
      errors.push({ path, message: `${id} is stored by none of the given earlier versions` });
      return;
    }
    for (const table of [...found.tables, ...found.joinTables]) {
      if (currentTables.has(table.name)) {
        for (const column of table.columns) {
          if (column.fieldId !== id) continue;
          push(`alter table if exists ${qualified(current.schema, table.name)} drop column if exists ${q(column.name)} cascade`, `drop column ${column.label}`, path);
        }
      } else if (table.sourceIds.includes(id)) {
        push(`drop table if exists ${qualified(current.schema, table.name)} cascade`, `drop table ${table.label}`, path);
      }
    }
  });
  if (errors.length > 0) throw new Problem(409, 'Some ids cannot be purged.', errors);
  return { schema: current.schema, steps, statements: steps.map((s) => s.sql), retained: [] };
}

/** Whether an earlier schema stored `id` (a model's table, a field's column, a join table). */
function stores(plan: SchemaPlan, id: string): boolean {
  return [...plan.tables, ...plan.joinTables].some((t) => t.sourceIds.includes(id) || t.columns.some((c) => c.fieldId === id));
}
