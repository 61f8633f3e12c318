/**
 * Access rules: owner-only, public read, signed-in read, writes (or everything) only for a
 * role of the user model. Rules are added in front of the model's current ones, so what
 * was allowed before still is unless the new rule decides first.
 */
import pluralize from 'pluralize';
import type { AccessRule, Model } from '../../../../definition/schema.ts';
import { Unclear, modelOf, type Context, type Rule, type Step } from '../context.ts';
import { ownerFieldOf } from '../names.ts';

/** Verbs naming one operation; the others (change, edit, write, manage) mean every write. */
const OPERATION_OF: Record<string, string> = {
  create: "operation == 'create'",
  add: "operation == 'create'",
  update: "operation == 'update'",
  modify: "operation == 'update'",
  delete: "operation == 'delete'",
  remove: "operation == 'delete'",
};

const PUBLIC_READ = "operation == 'read'";
const SIGNED_IN_READ = "auth != null && operation == 'read'";

function withRules(model: Model, front: AccessRule[], replace: boolean, understood: string): Step {
  const kept = replace ? [] : model.accessControl.rules.filter((r) => !front.some((f) => f.access === r.access && f.criteria === r.criteria));
  return {
    operations: [{ op: 'setAccessRules', modelId: model.id, accessControl: { rules: [...front, ...kept], defaultAccess: model.accessControl.defaultAccess ?? 'deny' } }],
    understood,
    model,
  };
}

function must(ctx: Context, phrase: string): Model {
  const model = modelOf(ctx, phrase);
  if (!model) throw new Unclear(`I found no model "${phrase.trim()}".`);
  return model;
}

function ownerOnly(ctx: Context, phrase: string): Step {
  const model = must(ctx, phrase);
  let criteria = 'auth != null && record.id == auth.id';
  if (model.id !== ctx.def.userModelId) {
    const owner = ownerFieldOf(ctx.def, model);
    if (!owner) throw new Unclear(`${model.name} has no field pointing to the user model; say "each ${model.name} belongs to a user" first.`);
    criteria = `auth != null && record.${owner.name} == auth.id`;
  }
  return withRules(model, [{ access: 'allow', criteria }], true, `Only the owner of a ${model.name} may read or change it.`);
}

/** The user model's field whose values include the role ("admins" → a `role` field with 'admin'). */
function roleCriteria(ctx: Context, roleWord: string): { field: string; value: string } {
  const wanted = pluralize.singular(roleWord.toLowerCase()).replace(/^administrator$/, 'admin');
  const user = ctx.def.models.find((m) => m.id === ctx.def.userModelId);
  for (const field of user?.fields ?? []) {
    const value = field.enum?.find((v) => typeof v === 'string' && v.toLowerCase() === wanted);
    if (typeof value === 'string') return { field: field.name, value };
  }
  throw new Unclear(`The user model has no field with the role '${wanted}'; add one first (e.g. "add a role to users: member or ${wanted}").`);
}

export const access: Rule = (sentence, ctx) => {
  let m =
    /^only\s+(?:the\s+|their\s+|its\s+)?(?:owners?|creators?|authors?)(?:\s+of\s+(?:an?\s+|the\s+)?(.+?))?\s+(?:can|may|should)\s+(?:\w+\s+)*?(?:see|read|view|access|edit|change|manage|update|delete|modify)\s+(?:the(?:ir)?\s+|its\s+)?(?:own\s+)?(.+)$/i.exec(sentence);
  if (m) return ownerOnly(ctx, m[2].replace(/^(?:them|it)$/i, m[1] ?? m[2]));
  m =
    /^(?:make|keep)\s+(.+?)\s+(?:owner[- ]only|private(?:\s+to\s+(?:their|its)\s+owners?)?|visible only to (?:their|its) owners?)$/i.exec(sentence) ??
    /^(?:users|members|people|everyone)\s+(?:can\s+|should\s+|may\s+)?only\s+(?:see|read|access|view)\s+their\s+own\s+(.+)$/i.exec(sentence) ??
    /^(.+?)\s+(?:are|is|should be)\s+(?:owner[- ]only|private to (?:their|its) owners?)$/i.exec(sentence);
  if (m) return ownerOnly(ctx, m[1]);

  m =
    /^(?:anyone|everyone|everybody|the public|visitors|anonymous (?:users|visitors))\s+(?:can|may|should be able to)\s+(?:read|see|view|browse|list)\s+(?:the\s+|all\s+)?(.+?)(?:\s+without (?:signing|logging) in)?$/i.exec(sentence) ??
    /^make\s+(.+?)\s+(?:public(?:ly)?(?:\s+(?:readable|visible))?|readable by (?:anyone|everyone))$/i.exec(sentence) ??
    /^(.+?)\s+(?:are|is|should be)\s+(?:public|publicly (?:readable|visible)|public read)$/i.exec(sentence);
  if (m) {
    const model = must(ctx, m[1]);
    return withRules(model, [{ access: 'allow', criteria: PUBLIC_READ }], false, `Anyone may read ${model.name} records.`);
  }
  m = /^(?:signed[- ]in|logged[- ]in|authenticated|registered)\s+(?:users|members|people)\s+(?:can|may)\s+(?:read|see|view)\s+(?:all\s+)?(.+)$/i.exec(sentence);
  if (m) {
    const model = must(ctx, m[1]);
    return withRules(model, [{ access: 'allow', criteria: SIGNED_IN_READ }], false, `Signed-in users may read ${model.name} records.`);
  }
  m = /^only\s+([a-z]+?)s?\s+(?:can|may|should be able to)\s+(change|edit|write|modify|update|create|add|delete|remove|manage|see|read|view|access)\s+(?:the\s+|all\s+)?(.+)$/i.exec(sentence);
  if (m) {
    const role = roleCriteria(ctx, m[1]);
    const model = must(ctx, m[3]);
    const not = `(auth == null || auth.${role.field} != '${role.value}')`;
    const reads = /see|read|view|access/i.test(m[2]);
    const criteria = reads ? not.slice(1, -1) : `${OPERATION_OF[m[2].toLowerCase()] ?? "operation != 'read'"} && ${not}`;
    return withRules(model, [{ access: 'deny', criteria }], false, `Only users whose ${role.field} is ${role.value} may ${reads ? 'see' : 'change'} ${model.name} records.`);
  }
  return null;
};
