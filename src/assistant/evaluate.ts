/**
 * Quality of a planner over a corpus of requests with hand-written expected operations
 * (DESIGN §15): a case matches exactly when the planned operations deep-equal the expected
 * ones, in order. Used by the corpus test and `npm run bench:assistant`.
 */
import { isDeepStrictEqual } from 'node:util';
import type { AppDefinition } from '../definition/schema.ts';
import type { Operation } from './operations.ts';
import { dryRun, type ProposalStatus } from './proposals.ts';
import type { Planner } from './planners/planner.ts';

export interface CorpusCase {
  app: string;
  request: string;
  expected: Operation[];
  /** The dry run's verdict for the expected operations (default `proposed`). */
  status?: ProposalStatus;
  /** What the case exercises (access, multi, email, unique, default, near-name, short-name, create-values, refuse, basic). */
  category?: string;
}

export interface CaseResult {
  case: CorpusCase;
  planned: Operation[];
  status: ProposalStatus;
  exact: boolean;
  ms: number;
}

export async function evaluate(planner: Planner, cases: readonly CorpusCase[], apps: Readonly<Record<string, AppDefinition>>): Promise<CaseResult[]> {
  const results: CaseResult[] = [];
  for (const c of cases) {
    const definition = apps[c.app];
    if (!definition) throw new Error(`The corpus names an unknown application '${c.app}'.`);
    const started = performance.now();
    const plan = await planner.plan({ text: c.request, definition: structuredClone(definition) });
    const status = dryRun(definition, definition.version, plan).status;
    const ms = performance.now() - started;
    results.push({ case: c, planned: plan.operations, status, exact: isDeepStrictEqual(plan.operations, c.expected), ms });
  }
  return results;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
