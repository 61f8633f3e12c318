/**
 * `renderCreateStatements`: the SQL creating a planned schema from nothing, one
 * statement per entry (schema, tables with their CHECKs, foreign keys, indexes).
 * The same code path as a migration from no previous definition.
 */
import { diffSchemas } from './migrate.ts';
import type { SchemaPlan } from './types.ts';

export function renderCreateStatements(plan: SchemaPlan): string[] {
  return diffSchemas(null, plan).statements;
}
