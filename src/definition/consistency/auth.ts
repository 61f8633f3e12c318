/**
 * The user model: `userModelId` must name a model, and when the app uses end-user
 * authentication (an HTTP trigger with `isPublic: false`, or an expression
 * reading `auth`) that model needs a single text field `email` (DESIGN §6).
 */
import type { ProblemDetail } from '../../errors.ts';
import type { AppDefinition } from '../schema.ts';
import { collectExpressions, type ExpressionSite } from './expression-sites.ts';
import type { ExpressionChecker } from './expressions.ts';
import { pointer } from './pointer.ts';

/** Fallback for an expression that does not compile: `auth` not as a member (`x.auth`) nor inside a word. */
const AUTH_VARIABLE = /(?<![\w.'"])auth\b/;

/** Whether the app uses end-user authentication: a non-public HTTP trigger or an expression reading `auth`. */
/** `sites`: the definition's expressions when the caller has them (collectExpressions). */
export function usesAuth(def: AppDefinition, checker?: ExpressionChecker, sites: () => ExpressionSite[] = () => collectExpressions(def)): boolean {
  if (def.triggers.some((t) => t.trigger.type === 'http' && t.isPublic === false)) return true;
  return sites().some((site) => {
    const variables = checker?.variables?.(site);
    return variables ? variables.has('auth') : AUTH_VARIABLE.test(site.source);
  });
}

export function checkUserModel(def: AppDefinition, checker?: ExpressionChecker, sites?: () => ExpressionSite[]): ProblemDetail[] {
  const index = def.models.findIndex((m) => m.id === def.userModelId);
  const model = def.models[index];
  if (!model) return [{ path: '/userModelId', message: `No model has the id '${def.userModelId}'.` }];
  if (!usesAuth(def, checker, sites)) return [];
  const k = model.fields.findIndex((f) => f.name === 'email');
  const email = model.fields[k];
  if (email && email.to === 'p_TEXT' && email.max === 1) return [];
  if (email) {
    return [
      {
        path: pointer('models', index, 'fields', k),
        message: `The app authenticates end users by email: the field 'email' of ${model.name} must be a single text (to p_TEXT, max 1).`,
      },
    ];
  }
  return [
    {
      path: '/userModelId',
      message: `The app authenticates end users, so the user model ${model.name} needs a text field 'email' (to p_TEXT, max 1).`,
    },
  ];
}
