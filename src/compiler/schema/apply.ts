/**
 * `applyMigration`: runs a migration's statements in ONE transaction, batched into few
 * round trips (`batch.ts`: `do` blocks): all of them or none.
 * A dry run runs them in a transaction that is always rolled back. A failing
 * statement throws 409 naming the statement and the definition member to blame;
 * nothing is changed.
 */
import { Problem } from '../../errors.ts';
import type { Db, Executor } from '../../storage/db.ts';
import { BatchStatementError, runStatementBatch } from './batch.ts';
import type { MigrationPlan, MigrationStep } from './types.ts';

export interface ApplyOptions {
  /** Run everything, then roll back: checks that existing rows convert. */
  dryRun?: boolean;
}

export interface ApplyResult {
  /** Statements that ran (all of them: a failure throws). */
  executed: number;
  dryRun: boolean;
}

type Migration = Pick<MigrationPlan, 'steps'> | readonly string[];

const ROLLBACK = Symbol('dry run rollback');

export async function applyMigration(db: Db, migration: Migration, options: ApplyOptions = {}): Promise<ApplyResult> {
  const steps = stepsOf(migration);
  const dryRun = options.dryRun === true;
  if (steps.length === 0) return { executed: 0, dryRun };
  try {
    await db.kysely.transaction().execute(async (trx) => {
      await runMigration(trx, { steps });
      if (dryRun) throw ROLLBACK;
    });
  } catch (error) {
    if (error !== ROLLBACK) throw error;
  }
  return { executed: steps.length, dryRun };
}

/**
 * Runs the steps on `executor` in order, without a transaction of its own: for a
 * caller that already holds one (a deployment). Throws the 409 Problem on failure.
 * `then`: statements that are not the migration's (the runtime's own tables and triggers),
 * run after it in the same batch, so both cost one round trip; a failure there is rethrown as
 * the database reported it.
 */
export async function runMigration(executor: Executor, migration: Migration, then: readonly string[] = []): Promise<void> {
  const steps = stepsOf(migration);
  try {
    await runStatementBatch(executor, [...steps.map((step) => step.sql), ...then]);
  } catch (error) {
    if (!(error instanceof BatchStatementError)) throw error;
    if (error.index >= steps.length) throw error.cause;
    throw migrationProblem(steps[error.index], error.index, steps.length, error);
  }
}

function stepsOf(migration: Migration): MigrationStep[] {
  if ('steps' in migration) return migration.steps;
  return migration.map((statement) => ({ sql: statement, summary: statement.slice(0, 80), path: '' }));
}

function migrationProblem(step: MigrationStep, index: number, total: number, error: unknown): Problem {
  const message = error instanceof Error ? error.message : String(error);
  const cause = step.path.endsWith('/to') ? 'existing rows would not convert' : 'existing rows do not fit';
  return new Problem(
    409,
    `The migration failed at statement ${index + 1} of ${total} (${step.summary}); nothing was changed. Statement: ${step.sql}`,
    [{ path: step.path, message: `${cause}: ${message}` }],
  );
}
