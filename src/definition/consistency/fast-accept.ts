/**
 * Fast acceptance (issue 28): whether a definition has no consistency problem at all, in time
 * that follows what changed since the application's last accepted definition rather than the
 * definition's size. A 1,000-model definition has some 13,000 fields; checking each of them on
 * every edit cost more than the rest of a one-field edit.
 *
 * It answers exactly as `checkConsistency` does whether the problem list is empty (the property
 * test in test/definition/incremental* holds the two side by side); when it is not, the caller
 * runs the whole check, which lists the problems with their paths in its order. So nothing here
 * decides what an answer says, only how soon an empty one is known.
 *
 * What makes it fast are facts about sealed models (definition/versioning/sealed.ts: deeply
 * frozen, so a fact about one holds for its lifetime): an edit shares the models it does not
 * change with the previous definition, and each check below is split into what a model's own
 * content decides (computed once per sealed model) and what it depends on beyond it (checked on
 * every validation, cheaply). A model that is not sealed is checked in full every time.
 */
import type { AppDefinition, Model } from '../schema.ts';
import { isRelationship } from '../relationships.ts';
import { isSealed } from '../versioning/sealed.ts';
import { checkActions } from './actions.ts';
import { checkUserModel } from './auth.ts';
import { collectExpressions, collectModelExpressions, collectOtherExpressions, type ExpressionSite } from './expression-sites.ts';
import { siteProblem } from './expressions.ts';
import type { ExpressionMemo, IncrementalChecker } from './incremental.ts';
import { checkModelFields, checkModelNames } from './models.ts';
import { checkModelRelationships } from './relationships.ts';
import { checkRequirements } from './requirements.ts';
import { checkTableWidths } from './table-width.ts';
import { checkTriggers } from './triggers.ts';
import type { ProblemDetail } from '../../errors.ts';

/** A sealed model's own field checks pass wherever the ids listed (its relationships' targets) are models. */
const fieldsClean = new WeakMap<Model, readonly string[]>();
/** A sealed model's relationships have no problem wherever each id names the same model (undefined: none). */
const relationshipsClean = new WeakMap<Model, ReadonlyMap<string, Model | undefined>>();

/**
 * What one application's validations (one memo) know from the last definition they accepted.
 * Weak references only: what is kept of a definition is the definition cache's to bound.
 */
interface Accepted {
  /** Counts acceptances; the sealed models of the last accepted definition carry its number. */
  generation: number;
  acceptedIn: WeakMap<Model, number>;
  /** Field ids with the sealed model that had them when it was accepted (a model's field ids never change). */
  fieldOwners: Map<string, WeakRef<Model>>;
  /**
   * Sealed models whose expressions had no problem, with the user model's signature (the memo's
   * number) they were typed with, and their memo keys. Their own signature cannot have changed:
   * a sealed model's is fixed while its relationships' targets are models (fieldsAreClean).
   */
  expressions: WeakMap<Model, { user: number; keys: string[] }>;
}

const acceptedBy = new WeakMap<ExpressionMemo, Accepted>();

/** Every id is a model id: a model's own field checks, with its relationships' targets set aside. */
const ANY_MODEL = { has: () => true };

/** True when `checkConsistency(def)` finds no problem; then the memo remembers `def` as accepted. */
export function acceptsQuickly(def: AppDefinition, memo: ExpressionMemo, checker: IncrementalChecker): boolean {
  const none: ProblemDetail[] = [];
  const clean = (problems: ProblemDetail[]) => problems.length === 0;
  const models = def.models;
  checkModelNames(models, none);
  if (!clean(none)) return false;
  // Model ids are unique from here on.
  const byId = new Map<string, Model>();
  const accepted = acceptedBy.get(memo) ?? { generation: 0, acceptedIn: new WeakMap(), fieldOwners: new Map(), expressions: new WeakMap() };
  const present = new Set(models);
  const fresh: Model[] = [];
  for (const model of models) {
    byId.set(model.id, model);
    if (accepted.generation === 0 || accepted.acceptedIn.get(model) !== accepted.generation) fresh.push(model);
  }
  if (!uniqueFieldIds(fresh, present, accepted)) return false;

  for (let i = 0; i < models.length; i++) {
    if (!fieldsAreClean(models[i], i, byId) || !relationshipsAreClean(models[i], i, byId)) return false;
  }
  if (!clean(checkTableWidths(def))) return false;
  if (!userModelIsClean(def, byId, checker)) return false;
  if (!clean(checkRequirements(def)) || !clean(checkActions(def)) || !clean(checkTriggers(def))) return false;
  if (!expressionsAreClean(def, memo, checker, accepted)) return false;
  remember(accepted, models, fresh);
  acceptedBy.set(memo, accepted);
  return true;
}

/** Records an accepted definition: its sealed models, and the field ids of those new to the memo. */
function remember(accepted: Accepted, models: readonly Model[], fresh: readonly Model[]): void {
  const generation = ++accepted.generation;
  let fieldCount = 0;
  for (const model of models) {
    if (!isSealed(model)) continue;
    accepted.acceptedIn.set(model, generation);
    fieldCount += model.fields.length;
  }
  // Ids of fields gone stay until a rebuild (when there are many more than fields); they name models no longer present, so they never count.
  const rebuild = accepted.fieldOwners.size > 2 * fieldCount + 1000;
  if (rebuild) accepted.fieldOwners.clear();
  for (const model of rebuild ? models : fresh) {
    if (!isSealed(model)) continue;
    const ref = new WeakRef(model);
    for (const field of model.fields) accepted.fieldOwners.set(field.id, ref);
  }
}

/**
 * No field id twice in the definition. The models known from the last accepted definition have
 * none twice among them; a duplicate involves a model that is new (or not sealed): another new
 * one, or a present model that had the id when it was accepted (sealed: it still has it).
 */
function uniqueFieldIds(fresh: Model[], present: ReadonlySet<Model>, accepted: Accepted): boolean {
  const seen = new Set<string>();
  for (const model of fresh) {
    for (const field of model.fields) {
      if (seen.has(field.id)) return false;
      seen.add(field.id);
      const owner = accepted.fieldOwners.get(field.id)?.deref();
      if (owner !== undefined && owner !== model && present.has(owner)) return false;
    }
  }
  return true;
}

function fieldsAreClean(model: Model, i: number, byId: ReadonlyMap<string, Model>): boolean {
  let targets = fieldsClean.get(model);
  if (!targets) {
    const problems: ProblemDetail[] = [];
    checkModelFields(model, i, ANY_MODEL, problems);
    if (problems.length > 0) return false;
    targets = model.fields.filter(isRelationship).map((f) => f.to);
    if (isSealed(model)) fieldsClean.set(model, targets);
  }
  // A relationship whose target is not a model is the one problem left.
  for (const id of targets) if (!byId.has(id)) return false;
  return true;
}

function relationshipsAreClean(model: Model, i: number, byId: ReadonlyMap<string, Model>): boolean {
  const known = relationshipsClean.get(model);
  if (known && sameTargets(known, byId)) return true;
  const problems: ProblemDetail[] = [];
  checkModelRelationships(byId, model, i, new Set(), problems);
  if (problems.length > 0) return false;
  // Only sealed models on both ends: a fact about objects that can change would not hold.
  const targets = new Map(model.fields.filter(isRelationship).map((f) => [f.to, byId.get(f.to)]));
  if (isSealed(model) && [...targets.values()].every((t) => t === undefined || isSealed(t))) relationshipsClean.set(model, targets);
  return true;
}

function sameTargets(known: ReadonlyMap<string, Model | undefined>, byId: ReadonlyMap<string, Model>): boolean {
  for (const [id, target] of known) if (byId.get(id) !== target) return false;
  return true;
}

/** The user model exists; with a single text `email` nothing else matters, otherwise its whole check decides. */
function userModelIsClean(def: AppDefinition, byId: ReadonlyMap<string, Model>, checker: IncrementalChecker): boolean {
  const user = byId.get(def.userModelId);
  if (!user) return false;
  const email = user.fields.find((f) => f.name === 'email');
  if (email && email.to === 'p_TEXT' && email.max === 1) return true;
  let sites: ExpressionSite[] | undefined;
  return checkUserModel(def, checker, () => (sites ??= collectExpressions(def))).length === 0;
}

function expressionsAreClean(def: AppDefinition, memo: ExpressionMemo, checker: IncrementalChecker, accepted: Accepted): boolean {
  const user = checker.reducible ? checker.signatureOf(def.userModelId) : -1;
  for (let i = 0; i < def.models.length; i++) {
    const model = def.models[i];
    // Typed the same way as when they were found clean: the same verdicts (the memo's, kept by asking).
    const known = checker.reducible ? accepted.expressions.get(model) : undefined;
    if (known && known.user === user && allKnown(memo, known.keys)) continue;
    const sites: ExpressionSite[] = [];
    collectModelExpressions(model, i, sites);
    if (sites.some((site) => siteProblem(site, checker) !== undefined)) return false;
    const keys = sites.map((site) => checker.keyOf(site));
    if (checker.reducible && isSealed(model) && keys.every((key) => key !== null)) {
      accepted.expressions.set(model, { user, keys: keys as string[] });
    }
  }
  const others: ExpressionSite[] = [];
  collectOtherExpressions(def, others);
  return others.every((site) => siteProblem(site, checker) === undefined);
}

function allKnown(memo: ExpressionMemo, keys: readonly string[]): boolean {
  for (const key of keys) if (memo.known(key) === undefined) return false;
  return true;
}
