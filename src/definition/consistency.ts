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
import { checkExpressions, type ExpressionChecker } from './consistency/expressions.ts';
import { checkModels } from './consistency/models.ts';
import { checkRelationships } from './consistency/relationships.ts';
import { checkRequirements } from './consistency/requirements.ts';
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
      return checkConsistency(def, { expressions: createIncrementalChecker(def, memo) });
    } finally {
      memo.end();
    }
  }
  const checker = options.expressions ?? createExpressionChecker(def);
  const structural = [
    ...checkModels(def),
    ...checkRelationships(def),
    ...checkUserModel(def, checker),
    ...checkRequirements(def),
    ...checkActions(def),
    ...checkTriggers(def),
  ];
  // Expressions are typed against the models: only worth it when model ids, names and types hold together.
  const modelsBroken =
    structural.some((p) => MODEL_SKELETON.test(p.path)) || !def.models.some((m) => m.id === def.userModelId);
  const expressions = modelsBroken ? [] : checkExpressions(def, checker);
  return [...structural, ...expressions];
}
