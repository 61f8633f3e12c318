/**
 * The bridge from the consistency checks to the expression module (`src/expressions/`):
 * one expression environment per definition (its models and user model), each site
 * checked in its scope, with `record` typed by the site's model.
 */
import {
  checkBudget,
  checkExpression,
  checkTranslatable,
  compile,
  freeVariables,
  type ExpressionContext,
  type ExpressionDefinition,
} from '../../expressions/index.ts';
import type { AppDefinition } from '../schema.ts';
import type { ExpressionSite } from './expression-sites.ts';
import type { ExpressionChecker } from './expressions.ts';

export function createExpressionChecker(def: AppDefinition): ExpressionChecker {
  const definition: ExpressionDefinition = { models: def.models, userModelId: def.userModelId };
  const context = (site: ExpressionSite): ExpressionContext => ({
    definition,
    scope: site.scope,
    modelId: site.model?.id ?? null,
  });
  return {
    check: (site) => {
      const result = checkExpression(site.source, context(site));
      return result.ok ? { ok: true, type: result.type } : { ok: false, message: result.message };
    },
    translatable: (site) => checkTranslatable(site.source, context(site)),
    budget: (site) => checkBudget(site.source, context(site)),
    variables: (site) => {
      const result = compile(site.source, context(site));
      return result.ok ? freeVariables(result.compiled.ast) : undefined;
    },
    tree: (site) => {
      const result = compile(site.source, context(site));
      return result.ok ? result.compiled.ast : undefined;
    },
  };
}
