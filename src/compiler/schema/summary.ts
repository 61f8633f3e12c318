/** `summarizeMigration`: a migration in a few human lines, for the application's `status.migrations`. */
import type { MigrationPlan } from './types.ts';

export function summarizeMigration(plan: Pick<MigrationPlan, 'steps' | 'retained'>): string[] {
  const lines = plan.steps.map((step) => step.summary);
  for (const item of plan.retained) lines.push(`keep ${item.kind} ${item.label} (removed from the definition; purge to drop)`);
  return [...new Set(lines)];
}
