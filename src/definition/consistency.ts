/**
 * Consistency of a well-shaped definition (DESIGN §4): every rule, each problem
 * naming the JSON pointer of the offending member. Problems are collected, not
 * thrown: `validate.ts` turns them into a 409.
 */
import type { ProblemDetail } from '../errors.ts';
import { checkActions } from './consistency/actions.ts';
import { checkUserModel } from './consistency/auth.ts';
import { createExpressionChecker } from './consistency/expression-checker.ts';
import { createIncrementalChecker, type ExpressionMemo } from './consistency/incremental.ts';
import { acceptsQuickly } from './consistency/fast-accept.ts';
import { checkExpressions, type ExpressionChecker } from './consistency/expressions.ts';
import { collectExpressions, type ExpressionSite } from './consistency/expression-sites.ts';
import { checkModels } from './consistency/models.ts';
import { checkRelationships } from './consistency/relationships.ts';
import { checkRequirements } from './consistency/requirements.ts';
import { checkTableWidths } from './consistency/table-width.ts';
import { checkTriggers } from './consistency/triggers.ts';
import type { AppDefinition } from './schema.ts';

/** Problems here make the expression environment meaningless. */
const MODEL_SKELETON = /^\/models\/\d+(\/fields\/\d+)?\/(id|name|to)$/;

export interface ConsistencyOptions {
  /** Replaces the expression module (tests); by default built from the definition's models. */
  expressions?: ExpressionChecker;
  /** The application's expression verdicts from its earlier validations: only what changed is checked again (incremental.ts). */
  memo?: ExpressionMemo;
}

export function checkConsistency(def: AppDefinition, options: ConsistencyOptions = {}): ProblemDetail[] {
  if (options.memo && !options.expressions) {
    const memo = options.memo;
    memo.begin();
    try {
      const checker = createIncrementalChecker(def, memo);
      // Most edits leave a consistent definition: known without checking what did not change (fast-accept.ts).
      if (acceptsQuickly(def, memo, checker)) return [];
      return checkConsistency(def, { expressions: checker });
    } finally {
      memo.end();
    }
  }
  const checker = options.expressions ?? createExpressionChecker(def);
  // Collected once, for the user model's check and the expressions' (a large definition has thousands).
  let collected: ExpressionSite[] | undefined;
  const sites = () => (collected ??= collectExpressions(def));
  const structural = [
    ...checkModels(def),
    ...checkRelationships(def),
    ...checkTableWidths(def),
    ...checkUserModel(def, checker, sites),
    ...checkRequirements(def),
    ...checkActions(def),
    ...checkTriggers(def),
  ];
  // Expressions are typed against the models: only worth it when model ids, names and types hold together.
  const modelsBroken =
    structural.some((p) => MODEL_SKELETON.test(p.path)) || !def.models.some((m) => m.id === def.userModelId);
  const expressions = modelsBroken ? [] : checkExpressions(def, checker, sites());
  return [...structural, ...expressions];
}
