/**
 * Expression checks (DESIGN §5): every expression of the definition must parse
 * and type-check in its scope against the models; access rules must also be
 * translatable to SQL. The parsing and typing live in `src/expressions/`; this
 * file only collects the expressions and reports the verdicts at their pointers.
 */
import type { ProblemDetail } from '../../errors.ts';
import type { ASTNode } from '../../expressions/index.ts';
import { secretPlacementTrouble } from '../../secrets/placement.ts';
import type { AppDefinition } from '../schema.ts';
import { defaultTypeProblem } from './default-types.ts';
import { collectExpressions, type ExpressionSite } from './expression-sites.ts';

/** `type`: the CEL type of the result, when the checker knows it. */
export type ExpressionVerdict = { ok: true; type?: string } | { ok: false; message: string };

/** What the consistency check needs from the expression module. */
export interface ExpressionChecker {
  /** Parses and type-checks an expression in its scope. */
  check(site: ExpressionSite): ExpressionVerdict;
  /** For access rules: whether the rule can become a SQL `WHERE` clause. */
  translatable(site: ExpressionSite): ExpressionVerdict;
  /** Whether the record-independent parts of the expression finish within the evaluation budget. */
  budget?(site: ExpressionSite): ExpressionVerdict;
  /** The free variables an expression reads (`auth`, `record`, ...); undefined when it does not compile. */
  variables?(site: ExpressionSite): ReadonlySet<string> | undefined;
  /** The parsed expression; undefined when it does not compile. */
  tree?(site: ExpressionSite): ASTNode | undefined;
}

/** `sites`: the definition's expressions when the caller has them already. */
export function checkExpressions(def: AppDefinition, checker: ExpressionChecker, sites: ExpressionSite[] = collectExpressions(def)): ProblemDetail[] {
  const problems: ProblemDetail[] = [];
  for (const site of sites) {
    const problem = siteProblem(site, checker);
    if (problem) problems.push(problem);
  }
  return problems;
}

/** The problem of one expression, if it has one. */
export function siteProblem(site: ExpressionSite, checker: ExpressionChecker): ProblemDetail | undefined {
  const verdict = safely(() => checker.check(site));
  if (!verdict.ok) {
    // Secrets exist only where an effect binds its params, so they cannot reach answers or records.
    const message = /^Unknown variable: secrets\b/.test(verdict.message) ? 'secrets.NAME is readable only in effect bindParams' : verdict.message;
    return { path: site.path, message: `Invalid ${site.scope} expression: ${message}` };
  }
  const secret = secretProblem(site, checker);
  if (secret) return { path: site.path, message: `Invalid ${site.scope} expression: ${secret}` };
  const budget = checker.budget ? safely(() => checker.budget!(site)) : { ok: true as const };
  if (!budget.ok) {
    return { path: site.path, message: `The ${site.scope} expression exhausts its evaluation budget: ${budget.message}` };
  }
  if (site.field && verdict.type !== undefined) {
    // A default expression (scope 'default', never a rule): its one problem.
    const mismatch = defaultTypeProblem(site.field, verdict.type);
    if (mismatch) return { path: site.path, message: `Invalid default expression: ${mismatch}` };
  }
  if (site.scope !== 'rule') return undefined;
  const translation = safely(() => checker.translatable(site));
  if (!translation.ok) {
    return { path: site.path, message: `The access rule cannot be translated to SQL: ${translation.message}` };
  }
  return undefined;
}

/** Why an effect's expression reads a secret where it may not (secrets/placement.ts), if it does. */
function secretProblem(site: ExpressionSite, checker: ExpressionChecker): string | null {
  if (!site.effect || !checker.tree || !checker.variables?.(site)?.has('secrets')) return null;
  const tree = checker.tree(site);
  return tree ? secretPlacementTrouble(tree, site.effect.name, site.effect.param) : null;
}

/** A checker that throws is a verdict too (never a 500 for a bad expression). */
function safely(run: () => ExpressionVerdict): ExpressionVerdict {
  try {
    return run();
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
