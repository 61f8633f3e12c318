/** The compiler from definitions to database schema, and its migrations (DESIGN §3). */
export type { ColumnPlan, ForeignKeyPlan, IndexPlan, MigrationPlan, MigrationStep, OnDelete, RetainedItem, SchemaPlan, TablePlan } from './types.ts';
export { planSchema } from './plan.ts';
export { renderCreateStatements } from './render.ts';
export { planMigration, diffSchemas } from './migrate.ts';
export { planPurge } from './purge.ts';
export { applyMigration, runMigration, type ApplyOptions, type ApplyResult } from './apply.ts';
export { runStatementBatch, BatchStatementError } from './batch.ts';
export { summarizeMigration } from './summary.ts';
export { dollarQuoted, quoteLiteral } from './literals.ts';
export { PRIMITIVE_SQL_TYPES } from './columns.ts';
