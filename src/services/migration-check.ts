/**
 * The check a publish makes before it queues a deployment (DESIGN §3): plan the
 * migration from the deployed schema to the version and, when a step depends on the
 * rows already stored (a type conversion, a backfill, NOT NULL, a CHECK), run it in a
 * transaction that is always rolled back. A conversion that would fail answers 409 at
 * once, naming the field and the value PostgreSQL refused, and nothing changes. The
 * deployment job repeats the migration for real and fails the same way if rows changed
 * in between.
 *
 * The dry run takes the same locks as the migration for its (short) duration, so it is
 * skipped when no step touches rows: adding tables and columns cannot fail on data.
 */
import type { Db } from '../storage/db.ts';
import type { AppDefinition } from '../definition/schema.ts';
import { applyMigration, diffSchemas, planSchema, type MigrationStep } from '../compiler/schema/index.ts';
import { checkColumnBudget } from './column-budget.ts';

/** Steps that cannot fail on stored rows; anything else (a conversion, a backfill, NOT NULL, a CHECK, a foreign key) is dry-run. */
const SAFE = [
  /^create (schema|table|index) if not exists /,
  /^alter table \S+ add column if not exists /,
  /^alter table \S+ drop constraint if exists /,
  /^drop index if exists /,
  /^alter table \S+ alter column \S+ (drop default|set default |drop not null)/,
];

function touchesRows(step: MigrationStep): boolean {
  return !SAFE.some((pattern) => pattern.test(step.sql));
}

export async function checkMigration(db: Db, applicationId: string, definition: AppDefinition): Promise<void> {
  const deployed = await db.kysely.selectFrom('appbuilder.app_schemas').select('scode').where('application_id', '=', applicationId).executeTakeFirst();
  if (!deployed) return; // nothing stored yet: a fresh schema cannot fail on rows
  // Plan-time refusals (a pair of types without a safe conversion) throw 409 here.
  const before = planSchema(deployed.scode as unknown as AppDefinition, applicationId);
  const after = planSchema(definition, applicationId);
  const plan = diffSchemas(before, after);
  await checkColumnBudget(db, before, after);
  if (!plan.steps.some(touchesRows)) return;
  await applyMigration(db, plan, { dryRun: true });
}
