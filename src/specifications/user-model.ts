/**
 * Which model the generated app's end users sign up and sign in as, chosen by evidence rather
 * than by the first model with an email: an email or login field, a password or credential
 * field, a name that says so (user, account, member, customer, person…) and how many other
 * models point at it with a to-one relationship (invoices of a customer, orders of a user).
 * Some models are never end users whatever they hold: a request or response variant of an
 * entity (`UserCreationReq`), an integration's record (`LdapUser`, a vendor's `…Contact`), the
 * root schema named after its document's file, or the business's operators (`Staff`).
 *
 * The choice (with its reasons and the runner-up) is a warning. When nothing fits, a `User`
 * model (name, email) is added and the models that record something happening (nothing points
 * at them, they point at others: an order) link to it. The user model's password property is
 * the account password, not a field; its required relationships become optional, because
 * sign-up cannot set relationships (it would link records the newcomer has no right to).
 */
import type { MergedField, MergedModel, Source, SourcedDraft, SpecWarning } from './merge.ts';
import { modelName, relationshipFieldName, wordsOf } from './names.ts';

const USER_WORDS = new Set(['user', 'users', 'account', 'accounts', 'member', 'members', 'customer', 'customers', 'person', 'people', 'persons', 'subscriber', 'subscribers', 'client', 'clients', 'patient', 'patients', 'student', 'students']);
/** People who run the business rather than use its app: they sign in, but are not its end users. */
const OPERATOR_WORDS = new Set(['staff', 'employee', 'employees', 'admin', 'admins', 'administrator', 'operator', 'operators', 'agent', 'agents']);
const VARIANT = /(Req|Request|Create|Creation|Update|Input|Patch|Payload|Params|Form|Body|Created|Resp|Response|Dto|Reply|Summary|Detail|Details)$/;
/** `UserCreationReq`, `PetResponse`; a model named `Patch` alone is no variant. */
const isVariant = (name: string) => VARIANT.test(name) && name.replace(VARIANT, '') !== '';
const INTEGRATION = /^(Ldap|Saml|Scim|Oauth|Oidc|Sso|Ad|Aad|Azure|Okta|Keycloak|Google|Github|Gitlab|Slack|Stripe|Salesforce|Hubspot|Zendesk|Twilio|Facebook|Twitter|Microsoft)(?=[A-Z0-9])|Contacts?$/;
const LOGIN_FIELDS = new Set(['username', 'userName', 'login', 'loginName', 'handle', 'nickname']);
/** The account password under the document's names: the account system holds it, hashed. */
export const PASSWORD_FIELDS = new Set(['password', 'passwd', 'passwordHash', 'passwordDigest', 'hashedPassword', 'encryptedPassword', 'pwd']);
const CREDENTIAL_FIELDS = /^(password|passwd|pwd|credential|credentials|passwordHash|passwordDigest|hashedPassword|encryptedPassword|passphrase)$/;
/** Points for each other model pointing at a candidate, and at most this many such models counted. */
const MAX_TARGETS = 2;
/** Below this a candidate is not enough of a user: a User model is added instead. */
const THRESHOLD = 5;

const isText = (f: MergedField) => f.type === 'p_TEXT' && !f.many;

interface Candidate {
  model: MergedModel;
  score: number;
  reasons: string[];
}

/** Why a model can never be the user model, or null. */
function excluded(model: MergedModel, drafts: SourcedDraft[]): string | null {
  if (INTEGRATION.test(model.name)) return `${model.name} is an integration's record, not the app's own users`;
  if (isVariant(model.name)) return `${model.name} is a request or response variant of an entity`;
  const draft = drafts.find((d) => d.attachmentId === model.source.attachmentId);
  // A CSV's one model is rightly named after its file; a schema with definitions names its root so only when untitled.
  if (draft && draft.draft.models.length > 1) {
    // `cyclonedx-bom-1.3.schema.json` → CyclonedxBom, as the JSON Schema extractor names an untitled root.
    const stem = (draft.name.replace(/^.*[\\/]/, '').split('.')[0] ?? '').replace(/[-_.]?v?\d+$/, '');
    if (stem && modelName(stem) === model.name) return `${model.name} is the root schema named after the file ${draft.name}`;
  }
  return null;
}

function scored(model: MergedModel, models: MergedModel[]): Candidate {
  const reasons: string[] = [];
  let score = 0;
  const words = wordsOf(model.name).map((w) => w.toLowerCase());
  if (words.length === 1 && USER_WORDS.has(words[0])) {
    score += 5;
    reasons.push(`its name (${model.name}) says end users`);
  } else if (words.some((w) => USER_WORDS.has(w))) {
    score += 2;
    reasons.push(`its name (${model.name}) mentions users`);
  }
  if (words.some((w) => OPERATOR_WORDS.has(w))) {
    score -= 3;
    reasons.push(`its name (${model.name}) says the business's operators rather than its end users`);
  }
  const email = model.fields.find((f) => isText(f) && f.name === 'email');
  if (email) {
    score += 3;
    reasons.push('it has an email field');
  }
  const login = model.fields.find((f) => isText(f) && LOGIN_FIELDS.has(f.name));
  if (login) {
    score += 1;
    reasons.push(`it has a login field (${login.name})`);
  }
  const credential = model.fields.find((f) => !f.many && typeof f.type === 'string' && CREDENTIAL_FIELDS.test(f.name));
  if (credential) {
    score += 2;
    reasons.push(`it has a password field (${credential.name})`);
  }
  const pointing = models.filter((m) => m !== model && m.fields.some((f) => !f.many && typeof f.type !== 'string' && f.type.model === model.name)).map((m) => m.name);
  if (pointing.length > 0) {
    score += Math.min(pointing.length, MAX_TARGETS);
    reasons.push(`${pointing.slice(0, 4).join(', ')}${pointing.length > 4 ? ` and ${pointing.length - 4} more` : ''} point${pointing.length === 1 ? 's' : ''} at it`);
  }
  return { model, score, reasons };
}

export interface UserModelChoice {
  /** The user model's name (an added `User` included). */
  name: string;
  /** The models to plan: the merged ones, the added User and its links among them. */
  models: MergedModel[];
  /** The name of the added User model, when none fitted. */
  added: string | null;
  warnings: SpecWarning[];
}

const describe = (c: Candidate) => `${c.model.name} (score ${c.score}: ${c.reasons.join('; ') || 'no evidence'})`;

/**
 * Chooses the user model among `merged`, adding one when none fits; prepares it for sign-up
 * (an `email` field when it has a login but no email, no password field). Returns the models to
 * plan (copies where changed: `merged` itself is not modified).
 */
export function chooseUserModel(merged: MergedModel[], drafts: SourcedDraft[]): UserModelChoice {
  const warnings: SpecWarning[] = [];
  const excludedNotes: string[] = [];
  const candidates: Candidate[] = [];
  for (const model of merged) {
    if (model.joinOf) continue;
    const why = excluded(model, drafts);
    if (why) {
      if (model.fields.some((f) => f.name === 'email') || wordsOf(model.name).some((w) => USER_WORDS.has(w.toLowerCase()))) excludedNotes.push(why);
      continue;
    }
    const candidate = scored(model, merged);
    const signs = candidate.model.fields.some((f) => isText(f) && (f.name === 'email' || LOGIN_FIELDS.has(f.name)));
    // End users sign in by a single text `email`: an `email` of another shape cannot serve.
    const email = candidate.model.fields.find((f) => f.name === 'email');
    if (signs && (!email || isText(email)) && candidate.score >= THRESHOLD) candidates.push(candidate);
  }
  candidates.sort((a, b) => b.score - a.score || merged.indexOf(a.model) - merged.indexOf(b.model));
  const [best, runnerUp] = candidates;
  const never = excludedNotes.length > 0 ? ` Never chosen: ${excludedNotes.join('; ')}.` : '';
  if (!best) return addedUser(merged, drafts, never);

  let model = best.model;
  const notes: string[] = [];
  if (!model.fields.some((f) => isText(f) && f.name === 'email')) {
    // End users sign in by email: a login-only model gets one.
    model = { ...model, fields: [...model.fields, { name: 'email', type: 'p_TEXT', many: false, required: false, source: model.source }] };
    notes.push(`an email field was added to ${model.name}, as end users sign in by email`);
  }
  const password = model.fields.find((f) => PASSWORD_FIELDS.has(f.name) && typeof f.type === 'string');
  if (password) {
    model = { ...model, fields: model.fields.filter((f) => f !== password) };
    warnings.push({
      ...password.source,
      message: `${model.name}.${password.name} is not made a field: the account password takes its place (sent at sign-up, hashed by the account system, never returned).`,
    });
  }
  let models = merged.map((m) => (m === best.model ? model : m));
  if (!merged.some((m) => m.fields.some((f) => !f.many && typeof f.type !== 'string' && f.type.model === best.model.name))) {
    // Nothing belongs to the users yet: what records something happening becomes theirs.
    const linked = linkHappenings(models, model.name);
    models = linked.models;
    if (linked.names.length > 0) notes.push(`nothing pointed at ${model.name}: ${linkedText(linked.names)}`);
  }
  const second = runnerUp ? ` Runner-up: ${describe(runnerUp)}.` : ' No other model was a candidate.';
  warnings.unshift({
    ...best.model.source,
    message: `${best.model.name} is the user model (the model end users sign up and sign in as), score ${best.score}: ${best.reasons.join('; ')}.${second}${never}${notes.length ? ` Also: ${notes.join('; ')}.` : ''}`,
  });
  return { name: model.name, models, added: null, warnings };
}

/** No model fits: a `User` (name, email), linked from each model that records something happening. */
function addedUser(merged: MergedModel[], drafts: SourcedDraft[], never: string): UserModelChoice {
  const names = new Set(merged.map((m) => m.name));
  let name = 'User';
  for (let n = 2; names.has(name); n++) name = `User${n}`;
  const claimed = claimUserIds(merged, drafts, name);
  const { models, names: linked } = linkHappenings(claimed.models, name);
  // The added model names no place in a document: its source is the first model's, for the warning only.
  const source: Source | undefined = merged[0]?.source;
  const text = (field: string): MergedField => ({ name: field, type: 'p_TEXT', many: false, required: false, source: source ?? { attachmentId: '', locator: '' } });
  models.push({ name, fields: [text('name'), text('email')], source: source ?? { attachmentId: '', locator: '' } });
  const ids = claimed.names.length > 0 ? ` ${claimed.names.join(', ')} (pointing at users the documents do not describe) now point${claimed.names.length === 1 ? 's' : ''} at ${name}.` : '';
  const links = `${ids}${linked.length > 0 ? ` ${linkedText(linked)}.` : ''}`;
  return {
    name,
    models,
    added: name,
    warnings: [{ message: `No model describes the app's end users (an email or login with a user-like name, a password, models pointing at it): a ${name} model (name, email) was added as the user model.${links}${never}` }],
  };
}

/** Not a record of its own: an envelope, an error shape or a variant of an entity. */
const NOT_A_RECORD = /(Error|Errors|Page|List|Envelope|Result|Results|Wrapper)$/;

/**
 * Each model that records something happening (nothing points at it, it points at other models:
 * an order of a pet) gets a to-one field `user` to `userModel`, so that it belongs to a user.
 */
function linkHappenings(models: MergedModel[], userModel: string): { models: MergedModel[]; names: string[] } {
  const pointedAt = new Set(models.flatMap((m) => m.fields.flatMap((f) => (typeof f.type === 'string' ? [] : [f.type.model]))));
  const names: string[] = [];
  const out = models.map((m) => {
    const pointsElsewhere = m.fields.some((f) => typeof f.type !== 'string' && !f.many && f.type.model !== m.name && f.type.model !== userModel);
    if (m.name === userModel || m.joinOf || pointedAt.has(m.name) || !pointsElsewhere || m.fields.some((f) => f.name === 'user')) return m;
    if (isVariant(m.name) || NOT_A_RECORD.test(m.name)) return m;
    names.push(m.name);
    const link: MergedField = { name: 'user', type: { model: userModel }, many: false, required: false, source: m.source };
    return { ...m, fields: [...m.fields, link] };
  });
  return { models: out, names };
}

function linkedText(names: string[]): string {
  const one = names.length === 1;
  return `${names.join(', ')} record${one ? 's' : ''} something happening (nothing points at ${one ? 'it' : 'them'}, ${one ? 'it points' : 'they point'} at other models): ${one ? 'it gets' : 'each gets'} a to-one field user, linking it to the user who made it`;
}

/**
 * With a User added, what pointed at a users' table the documents name without describing it
 * (`user_id UUID, FK → user.user_id`, left out when merging) or a plain `userId` field becomes a
 * to-one relationship to the added model.
 */
function claimUserIds(models: MergedModel[], drafts: SourcedDraft[], userModel: string): { models: MergedModel[]; names: string[] } {
  const known = new Set(models.map((m) => m.name));
  const links = new Map<string, MergedField[]>();
  for (const { attachmentId, draft } of drafts) {
    for (const dm of draft.models) {
      for (const df of dm.fields) {
        if (typeof df.type === 'string' || df.many) continue;
        const target = modelName(df.type.model);
        if (known.has(target) || !USER_WORDS.has(target.toLowerCase())) continue;
        const owner = modelName(dm.name);
        const link: MergedField = { name: relationshipFieldName(df.name), type: { model: userModel }, many: false, required: df.required, source: { attachmentId, locator: df.locator } };
        links.set(owner, [...(links.get(owner) ?? []), link]);
      }
    }
  }
  const names: string[] = [];
  const out = models.map((m) => {
    const taken = new Set(m.fields.map((f) => f.name));
    const added = (links.get(m.name) ?? []).filter((l) => !taken.has(l.name) && taken.add(l.name));
    const id = added.length === 0 && !taken.has('user') ? m.fields.find((f) => f.name === 'userId' && typeof f.type === 'string' && !f.many) : undefined;
    if (id) added.push({ name: 'user', type: { model: userModel }, many: false, required: id.required, source: id.source });
    if (added.length === 0) return m;
    names.push(...added.map((l) => `${m.name}.${l.name}`));
    return { ...m, fields: [...m.fields.filter((f) => f !== id), ...added] };
  });
  return { models: out, names };
}
