// The rules a sign-up passes (issue 18). Nobody is signed in yet, and what the request sends must
// never vouch for itself: `auth` is not built from the request. A sign-up passes the user model's
// create rule, and may set a field, when the rule allows either
//   - an anonymous caller (`auth == null`), or
//   - the newcomer: the new user as they stand before anything they sent — their new id and the
//     values the app gives by itself (defaults), every field the request sets being null.
// So `auth.role == 'admin'` on `User.role` refuses `{"role": "admin"}` (the newcomer's role is the
// default, not what they asked for), while `record.id == auth.id` ("one's own record") still lets
// the new user write their own fields. Conditions on `record` are checked on the new row itself,
// inside the sign-up's transaction: a refusal rolls the whole sign-up back.
import type { RawBuilder } from 'kysely';
import { sql } from 'kysely';
import { forbidden } from '../../errors.ts';
import type { Executor } from '../../storage/db.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { accessCondition, fieldVisibility, type FieldAccess, type RuleContext } from '../data/rule-sql.ts';
import { checkRowFieldRules, type FieldWriteRules } from './field-rules.ts';
import type { PlainRecord } from './plain-record.ts';
import { ruleHolds } from './rules.ts';

/** The new user without anything the request set: id, defaults, and null (or no ids) for every field sent. */
export function newcomerOf(model: CompiledModel, created: PlainRecord, sent: readonly string[]): PlainRecord {
  const newcomer: PlainRecord = { ...created };
  for (const name of sent) {
    const field = model.fieldsByName.get(name);
    if (field) newcomer[name] = field.many ? [] : null;
  }
  return newcomer;
}

/** The two callers a sign-up is judged as, for `operation: 'create'`. */
function contexts(newcomer: PlainRecord): RuleContext[] {
  const now = new Date();
  return [
    { auth: null, operation: 'create', now },
    { auth: newcomer, operation: 'create', now },
  ];
}

const or = (parts: RawBuilder<unknown>[]): RawBuilder<unknown> => sql.join(parts.map((part) => sql`coalesce((${part}), false)`), sql.raw(' or '));

/** Throws 403 unless the model's create rule lets the anonymous caller or the newcomer create record `id`. */
async function checkCreateRule(executor: Executor, app: CompiledApp, model: CompiledModel, id: string, ctxs: RuleContext[]): Promise<void> {
  const conditions = ctxs.map((ctx) => accessCondition(app, model, ctx, 't'));
  if (conditions.some((c) => c.kind === 'all')) return;
  const rows = conditions.flatMap((c) => (c.kind === 'where' ? [c.sql] : []));
  if (rows.length === 0 || !(await ruleHolds(executor, app, model, id, or(rows)))) {
    throw forbidden(`You may not sign up: the rules of ${model.name} do not let a new user create their own record.`);
  }
}

/** The fields sent: refused when every caller is refused, decided on the row when one is allowed there, else allowed. */
function fieldRules(app: CompiledApp, model: CompiledModel, sent: readonly string[], ctxs: RuleContext[]): FieldWriteRules {
  const rules: FieldWriteRules = { denied: [], onRow: [] };
  if (sent.length === 0) return rules;
  const visibilities = ctxs.map((ctx) => fieldVisibility(app, model, ctx));
  for (const name of sent) {
    const accesses: FieldAccess[] = visibilities.map((visibility) => visibility.get(name) ?? { kind: 'visible' });
    if (accesses.some((access) => access.kind === 'visible')) continue;
    const rows = accesses.flatMap((access) => (access.kind === 'row' ? [access.condition('t')] : []));
    if (rows.length === 0) rules.denied.push(name);
    else rules.onRow.push([name, or(rows)]);
  }
  return rules;
}

/**
 * Checks a sign-up that created user `created` from the fields `sent` (the request's keys, without
 * the password): the model's create rule, then each field's rules. Throws 403 naming the fields.
 */
export async function checkSignupRules(
  executor: Executor,
  app: CompiledApp,
  model: CompiledModel,
  created: PlainRecord,
  sent: readonly string[],
): Promise<void> {
  const ctxs = contexts(newcomerOf(model, created, sent));
  await checkCreateRule(executor, app, model, created.id, ctxs);
  await checkRowFieldRules(executor, app, model, fieldRules(app, model, sent, ctxs), created.id);
}
