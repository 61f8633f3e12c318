/**
 * Access rules in the builder's words: sign-up, own records ("customers only see their own
 * invoices", "only the owner can edit invoices" — update/delete only, reading left as it was),
 * public read, signed-in read, and writes (or everything) only for a role of the user model (the
 * role field added when the user model has none). One sentence may name several models ("anyone
 * can read albums, artists and genres") and several permissions ("customers can sign up and edit
 * their own profile"). Rules are added in front of the model's current ones, so what was allowed
 * before still is unless the new rule decides first.
 */
import pluralize from 'pluralize';
import type { AccessRule, Model } from '../../../../definition/schema.ts';
import type { Operation } from '../../../operations.ts';
import { Unclear, modelOf, type Context, type Rule, type Step } from '../context.ts';
import { ownerFieldOf } from '../names.ts';
import { valuesOf } from '../text.ts';

/** Verbs naming one operation; the others (change, edit, write, manage) mean every write. */
const OPERATION_OF: Record<string, string> = {
  create: "operation == 'create'",
  add: "operation == 'create'",
  update: "operation == 'update'",
  modify: "operation == 'update'",
  delete: "operation == 'delete'",
  remove: "operation == 'delete'",
};
/** What "edit their own" changes: updates and deletions; reading and creating stay as they were. */
const OWN_EDIT: Record<string, string> = {
  update: "operation == 'update'",
  modify: "operation == 'update'",
  delete: "operation == 'delete'",
  remove: "operation == 'delete'",
};
const EDITS = "(operation == 'update' || operation == 'delete')";

const PUBLIC_READ = "operation == 'read'";
const SIGNED_IN_READ = "auth != null && operation == 'read'";
const READ_VERBS = /^(?:see|read|view|access|browse|list|look at|get)$/i;
const EDIT_VERBS = /^(?:edit|change|update|modify|manage|delete|remove|write)$/i;
const PUBLIC = /^(?:anyone|everyone|everybody|the public|visitors|guests|anonymous (?:users|visitors)|people without an account)$/i;
const SIGNED_IN = /^(?:signed[- ]in|logged[- ]in|authenticated|registered)\s+(?:users|members|people|customers|visitors)$/i;
const PROFILE = /^(?:profiles?|accounts?|details|data|information|info|user records?)$/i;

function withRules(model: Model, front: AccessRule[], replace: boolean, understood: string): Step {
  const kept = replace ? [] : model.accessControl.rules.filter((r) => !front.some((f) => f.access === r.access && f.criteria === r.criteria));
  return {
    operations: [{ op: 'setAccessRules', modelId: model.id, accessControl: { rules: [...front, ...kept], defaultAccess: model.accessControl.defaultAccess ?? 'deny' } }],
    understood,
    model,
  };
}

/** The models of "albums, artists and media types" (all must exist), or of one phrase. */
function modelsOf(ctx: Context, phrase: string): Model[] {
  const text = phrase.trim().replace(/^(?:the|all|every|any)\s+/i, '').replace(/\s+(?:records?|data|too|as well)$/i, '');
  const single = modelOf(ctx, text);
  if (single) return [single];
  const parts = valuesOf(text);
  if (parts.length > 1) {
    const models = parts.map((p) => modelOf(ctx, p.replace(/^(?:the|all)\s+/i, '')));
    if (models.every((m): m is Model => m !== undefined)) return models;
  }
  throw new Unclear(`I found no model "${phrase.trim()}".`);
}

function userModel(ctx: Context): Model | undefined {
  return ctx.def.models.find((m) => m.id === ctx.def.userModelId);
}

function ownerCriteria(ctx: Context, model: Model): string {
  if (model.id === ctx.def.userModelId) return 'record.id == auth.id';
  const owner = ownerFieldOf(ctx.def, model);
  if (!owner) throw new Unclear(`${model.name} has no field pointing to the user model; say "each ${model.name} belongs to a ${userModel(ctx)?.name ?? 'user'}" first.`);
  return `record.${owner.name} == auth.id`;
}

function ownerOnly(ctx: Context, model: Model): Step {
  const criteria = `auth != null && ${ownerCriteria(ctx, model)}`;
  return withRules(model, [{ access: 'allow', criteria }], true, `Only the owner of a ${model.name} may read or change it.`);
}

/** Updates and deletions (or one of them) only by the owner; reading and creating as they were. */
function ownerEdits(ctx: Context, model: Model, verb: string): Step {
  const own = ownerCriteria(ctx, model);
  const ops = OWN_EDIT[verb.toLowerCase()] ?? EDITS;
  const words = ops === EDITS ? 'change or delete' : verb.toLowerCase().startsWith('d') || verb.toLowerCase().startsWith('r') ? 'delete' : 'change';
  return withRules(
    model,
    [
      { access: 'deny', criteria: `${ops} && (auth == null || ${own.replace('==', '!=')})` },
      { access: 'allow', criteria: `auth != null && ${ops} && ${own}` },
    ],
    false,
    `Only the owner of a ${model.name} may ${words} it; reading is as it was.`,
  );
}

/** The user model's field whose values include the role; when none has it, the operations that add it. */
function roleOf(ctx: Context, roleWord: string): { field: string; value: string; operations: Operation[]; warning?: string } {
  const wanted = pluralize.singular(roleWord.toLowerCase()).replace(/^administrator$/, 'admin');
  const user = userModel(ctx);
  if (!user) throw new Unclear(`The application has no user model, so no roles; roles are values of a field of the user model.`);
  for (const field of user.fields) {
    const value = field.enum?.find((v) => typeof v === 'string' && v.toLowerCase() === wanted);
    if (typeof value === 'string') return { field: field.name, value, operations: [] };
  }
  const role = user.fields.find((f) => /^roles?$/i.test(f.name) && f.to === 'p_TEXT');
  if (role?.enum) {
    return {
      field: role.name,
      value: wanted,
      operations: [{ op: 'updateField', modelId: user.id, fieldId: role.id, changes: { enum: [...role.enum, wanted] } }],
      warning: `${user.name}.${role.name} gets the value '${wanted}'.`,
    };
  }
  if (role) throw new Unclear(`${user.name}.${role.name} has no list of values; give it one first (e.g. "the role of ${pluralize(user.name.toLowerCase())} can be member or ${wanted}").`);
  return {
    field: 'role',
    value: wanted,
    operations: [{ op: 'addField', modelId: user.id, field: { name: 'role', to: 'p_TEXT', enum: ['member', wanted], defaultValue: 'member' } }],
    warning: `${user.name} had no role: a field role (member or ${wanted}, default member) is added; set it to '${wanted}' for those users.`,
  };
}

function roleRule(ctx: Context, roleWord: string, verb: string, phrase: string): Step {
  const role = roleOf(ctx, roleWord);
  const not = `(auth == null || auth.${role.field} != '${role.value}')`;
  const reads = READ_VERBS.test(verb);
  const criteria = reads ? not.slice(1, -1) : `${OPERATION_OF[verb.toLowerCase()] ?? "operation != 'read'"} && ${not}`;
  const steps = modelsOf(ctx, phrase).map((model) => withRules(model, [{ access: 'deny', criteria }], false, `Only users whose ${role.field} is ${role.value} may ${reads ? 'see' : 'change'} ${model.name} records.`));
  return merge(steps, role.operations, role.warning);
}

function merge(steps: Step[], before: Operation[] = [], warning?: string): Step {
  return {
    operations: [...before, ...steps.flatMap((s) => s.operations)],
    understood: steps.map((s) => s.understood).join(' '),
    warnings: warning ? [warning] : [],
    model: steps[steps.length - 1]?.model,
  };
}

function readFor(ctx: Context, phrase: string, signedIn: boolean): Step {
  return merge(
    modelsOf(ctx, phrase).map((model) =>
      withRules(model, [{ access: 'allow', criteria: signedIn ? SIGNED_IN_READ : PUBLIC_READ }], false, `${signedIn ? 'Signed-in users' : 'Anyone'} may read ${model.name} records.`),
    ),
  );
}

/** The model of "their own invoices" / "their own profile" (the user model). */
function ownModel(ctx: Context, phrase: string): Model[] {
  const text = phrase.trim();
  if (PROFILE.test(text)) {
    const user = userModel(ctx);
    if (!user) throw new Unclear('The application has no user model, so no profiles.');
    return [user];
  }
  return modelsOf(ctx, text);
}

/** One permission of a subject: "sign up", "edit their own profile", "only see their own invoices", "read albums". */
function predicate(ctx: Context, subject: 'public' | 'signedIn' | 'users', text: string): Step | null {
  const t = text.trim().replace(/^(?:be able to|also)\s+/i, '');
  if (/^(?:sign(?:\s|-)?up|register|create (?:an |their )?(?:own )?accounts?|join)$/i.test(t)) {
    const user = userModel(ctx);
    if (!user) throw new Unclear('The application has no user model, so nobody can sign up; say which model holds the users.');
    return { operations: [], understood: `${pluralize(user.name)} sign up already (POST /auth/signup creates a ${user.name} with an email and a password).`, model: user };
  }
  let m = /^(?:only\s+)?(\w+)\s+(?:(?:and|or)\s+(\w+)\s+)?(?:only\s+)?(?:their|his or her|her|his)\s+own\s+(.+)$/i.exec(t);
  if (m) {
    const verbs = [m[1], m[2]].filter((v): v is string => Boolean(v));
    const models = ownModel(ctx, m[3]);
    if (verbs.some((v) => READ_VERBS.test(v))) return merge(models.map((model) => ownerOnly(ctx, model)));
    if (verbs.every((v) => EDIT_VERBS.test(v))) return merge(models.map((model) => ownerEdits(ctx, model, verbs.length === 1 ? verbs[0] : 'edit')));
    return null;
  }
  m = /^(?:see|read|view|browse|list|look at)\s+(.+?)(?:\s+without (?:signing|logging) in)?$/i.exec(t);
  if (m && subject !== 'users') return readFor(ctx, m[1], subject === 'signedIn');
  if (m) return readFor(ctx, m[1], true);
  return null;
}

/** "customers can sign up and edit their own profile": each permission with the subject. */
function subjectSentence(ctx: Context, sentence: string): Step | null {
  const m = /^(?:let|allow)\s+(.+?)\s+(?:to\s+)?(.+)$/i.exec(sentence) ?? /^(.+?)\s+(?:can|may|should be able to|are able to|must be able to|need to be able to)\s+(.+)$/i.exec(sentence) ?? /^(.+?)\s+(only\s+see\s+.+|sign\s*up|register)$/i.exec(sentence);
  if (!m) return null;
  const who = m[1].trim();
  const subject = PUBLIC.test(who) ? 'public' : SIGNED_IN.test(who) ? 'signedIn' : /^(?:users|members|people|customers|clients|visitors|end users|the users|our users|our customers)$/i.test(who) || modelOf(ctx, who)?.id === ctx.def.userModelId ? 'users' : null;
  if (!subject) return null;
  const parts = m[2].split(/(?:\s*,\s*(?:and\s+)?|\s+and\s+)(?=(?:only\s+)?(?:sign|register|see|read|view|edit|change|update|delete|manage|browse|list|create|join)\b)/i);
  const steps: Step[] = [];
  for (const part of parts) {
    const step = predicate(ctx, subject, part);
    if (!step) return null;
    steps.push(step);
    // Later permissions see the rules of earlier ones.
  }
  return merge(steps);
}

export const access: Rule = (sentence, ctx) => {
  let m =
    /^only\s+(?:the\s+|their\s+|its\s+)?(?:owners?|creators?|authors?)(?:\s+of\s+(?:an?\s+|the\s+)?(.+?))?\s+(?:can|may|should)\s+(?:\w+\s+)*?(see|read|view|access|edit|change|manage|update|delete|modify|remove)\s+(?:the(?:ir)?\s+|its\s+)?(?:own\s+)?(.+)$/i.exec(sentence);
  if (m) {
    const phrase = m[3].replace(/^(?:them|it)$/i, m[1] ?? m[3]);
    const models = modelsOf(ctx, phrase);
    return merge(models.map((model) => (READ_VERBS.test(m![2]) ? ownerOnly(ctx, model) : ownerEdits(ctx, model, m![2]))));
  }
  m =
    /^(?:make|keep)\s+(.+?)\s+(?:owner[- ]only|private(?:\s+to\s+(?:their|its)\s+owners?)?|visible only to (?:their|its) owners?)$/i.exec(sentence) ??
    /^(.+?)\s+(?:are|is|should be)\s+(?:owner[- ]only|private to (?:their|its) owners?|only visible to (?:their|its) owners?)$/i.exec(sentence);
  if (m) return merge(modelsOf(ctx, m[1]).map((model) => ownerOnly(ctx, model)));

  m =
    /^make\s+(.+?)\s+(?:public(?:ly)?(?:\s+(?:readable|visible))?|readable by (?:anyone|everyone))$/i.exec(sentence) ??
    /^(.+?)\s+(?:are|is|should be)\s+(?:public|publicly (?:readable|visible)|public read|readable by (?:anyone|everyone))$/i.exec(sentence);
  if (m) return readFor(ctx, m[1], false);
  m = /^(.+?)\s+(?:are|is|should be)\s+(?:visible|readable)\s+(?:to|for|by)\s+(?:signed[- ]in|logged[- ]in|authenticated)\s+(?:users|members|people)$/i.exec(sentence);
  if (m) return readFor(ctx, m[1], true);
  m = /^only\s+([a-z]+?)s?\s+(?:can|may|should be able to)\s+(change|edit|write|modify|update|create|add|delete|remove|manage|see|read|view|access)\s+(?:the\s+|all\s+)?(.+)$/i.exec(sentence);
  if (m && !/^(?:owner|creator|author|user|people)$/i.test(m[1])) return roleRule(ctx, m[1], m[2], m[3]);
  return subjectSentence(ctx, sentence);
};
