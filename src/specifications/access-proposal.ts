/**
 * Access rules proposed from the shape of the data, so that the app a document makes works for
 * its end users instead of being closed to everyone but the administrator:
 * - the user model: self sign-up, and each user reads and changes their own record;
 * - an owned model (a to-one field pointing at the user model, `Invoice.customer`): its owner
 *   reads, changes and creates it, the owner field defaulting to the caller (`auth.id`), so an
 *   end user's create needs no owner;
 * - reference data (nothing owns it, others point at it: `Genre`, `Language`): anyone reads it,
 *   administrators write;
 * - anything else: signed-in users read it, administrators write.
 * A rule can compare only the record's own fields (rules become SQL on the row), so a model
 * reaching the user model only through another (`InvoiceLine.invoice.customer`) is not owned;
 * its warning says so. Each proposal is a warning with its reason and the model's source.
 *
 * Modes: `owner` (the above), `public-read` (anyone reads everything but the users' records,
 * owners write theirs), `private` (no rule: only administrators, as before).
 */
import type { AccessControl, AppDefinition, Field, Model } from '../definition/schema.ts';
import { holdsForeignKey, isManyToMany, isRelationship } from '../definition/relationships.ts';
import type { SpecWarning } from './merge.ts';
import type { SourceOf } from './settle.ts';

export const ACCESS_MODES = ['owner', 'private', 'public-read'] as const;
export type AccessMode = (typeof ACCESS_MODES)[number];
export const DEFAULT_ACCESS_MODE: AccessMode = 'owner';

const allow = (criteria: string) => ({ access: 'allow' as const, criteria });
const access = (...criteria: string[]): AccessControl => ({ rules: criteria.map(allow), defaultAccess: 'deny' });

/** A proposal for one model, undone when the definition refuses it (`revertProposal`). */
interface Proposal {
  model: Model;
  previous: AccessControl;
  ownerField?: { field: Field; previous: unknown };
}

/** The to-one fields of `model` that hold the id of a user (their column is on this model's table). */
function ownerFields(def: AppDefinition, model: Model): Field[] {
  if (model.id === def.userModelId) return [];
  return model.fields.filter((f) => f.to === def.userModelId && f.max === 1 && f.computed === undefined && holdsForeignKey(def, model, f));
}

/** The models that some other model points at with a to-one field (or lists in a many-to-many); a has-many side refers to nothing. */
function referencedModels(def: AppDefinition): Set<string> {
  const out = new Set<string>();
  for (const model of def.models) {
    for (const field of model.fields) {
      if (!isRelationship(field) || field.to === model.id) continue;
      if (field.max === 1 ? holdsForeignKey(def, model, field) : isManyToMany(def, model, field)) out.add(field.to);
    }
  }
  return out;
}

export interface AccessProposals {
  warnings: SpecWarning[];
  /** Puts back the access of `model` as it was (the definition refused its proposal); false when nothing was proposed for it. */
  revert: (model: Model) => boolean;
}

/** Proposes access for every model of `def` (in place); answers the warnings and a way to undo one. */
export function proposeAccess(def: AppDefinition, mode: AccessMode, sourceOf: SourceOf): AccessProposals {
  const warnings: SpecWarning[] = [];
  const proposals = new Map<Model, Proposal>();
  const revert = (model: Model): boolean => {
    const proposal = proposals.get(model);
    if (!proposal) return false;
    proposals.delete(model);
    model.accessControl = proposal.previous;
    if (proposal.ownerField) {
      if (proposal.ownerField.previous === undefined) delete proposal.ownerField.field.defaultValue;
      else proposal.ownerField.field.defaultValue = proposal.ownerField.previous;
    }
    return true;
  };
  const warn = (model: Model, message: string) => warnings.push({ ...sourceOf.get(model), message });
  const userModel = def.models.find((m) => m.id === def.userModelId);
  if (mode === 'private') {
    warnings.push({
      message: 'Access: private. No rule is proposed: every model stays closed to end users (only the administrator, with a management credential, reads and writes) until rules are written; sign-up is refused.',
    });
    return { warnings, revert };
  }
  const referenced = referencedModels(def);
  const owned = new Map(def.models.map((m) => [m, ownerFields(def, m)]));
  const publicRead = mode === 'public-read';
  for (const model of def.models) {
    const previous = model.accessControl;
    if (model === userModel) {
      model.accessControl = access("auth != null && operation != 'delete' && record.id == auth.id");
      proposals.set(model, { model, previous });
      warn(
        model,
        `Access of ${model.name} (the user model): anyone may sign up, and each user reads and changes their own record, nobody else's (the rule record.id == auth.id also admits the newcomer's own record at sign-up); administrators see all.${publicRead ? ' Users\' records stay private under public-read: they hold their email.' : ''}`,
      );
      continue;
    }
    const owners = owned.get(model)!;
    if (owners.length > 0) {
      const mine = owners.map((f) => `record.${f.name} == auth.id`).join(' || ');
      const own = `auth != null && (${mine})`;
      model.accessControl = publicRead ? access("operation == 'read'", own) : access(own);
      const field = owners[0];
      const proposal: Proposal = { model, previous, ownerField: { field, previous: field.defaultValue } };
      field.defaultValue = { expression: 'auth.id' };
      proposals.set(model, proposal);
      warn(
        model,
        `Access of ${model.name}: owned through ${owners.map((f) => `${model.name}.${f.name}`).join(', ')} (to-one to the user model ${userModel?.name}): its owner reads, creates, changes and deletes it${publicRead ? ', anyone reads it (public-read)' : ', nobody else does'}; administrators do all. ${model.name}.${field.name} defaults to the signed-in user, so an end user's create needs no owner.`,
      );
      continue;
    }
    // Through another model only: a rule compares the record's own fields, never a chain.
    const via = model.fields.filter((f) => f.max === 1 && isRelationship(f) && holdsForeignKey(def, model, f)).flatMap((f) => {
      const target = def.models.find((m) => m.id === f.to);
      return target && target !== model && (owned.get(target)?.length ?? 0) > 0 ? [`${model.name}.${f.name}.${owned.get(target)![0].name}`] : [];
    });
    const chain = via.length > 0 ? ` It reaches the user model only through ${via[0]}: a rule can compare only the record's own fields, so it is not owned.` : '';
    if (publicRead || referenced.has(model.id)) {
      model.accessControl = access("operation == 'read'");
      const why = publicRead ? 'public-read: anyone reads every model' : 'reference data (no user owns it, other models point at it)';
      warn(model, `Access of ${model.name}: ${why}: anyone, signed in or not, reads it; administrators write.${chain}`);
    } else {
      model.accessControl = access("auth != null && operation == 'read'");
      warn(model, `Access of ${model.name}: no user owns it and no model points at it: signed-in users read it; administrators write.${chain}`);
    }
    proposals.set(model, { model, previous });
  }
  return { warnings, revert };
}

/**
 * Sign-up cannot set relationships (it runs before the user exists and would link records the
 * newcomer has no right to): a user model's required relationship would make sign-up impossible,
 * so it becomes optional; the new user sets it once signed in (their own record's update rule).
 */
export function signupReady(def: AppDefinition, sourceOf: SourceOf): SpecWarning[] {
  const model = def.models.find((m) => m.id === def.userModelId);
  if (!model) return [];
  const relaxed = model.fields.filter((f) => isRelationship(f) && f.min > 0);
  for (const field of relaxed) field.min = 0;
  if (relaxed.length === 0) return [];
  const names = relaxed.map((f) => `${model.name}.${f.name}`).join(', ');
  return [
    {
      ...sourceOf.get(model),
      message: `${names} ${relaxed.length === 1 ? 'is' : 'are'} required in the document but optional here: sign-up takes the user's own fields only, never relationships, so a required one would make sign-up impossible. A new user sets ${relaxed.length === 1 ? 'it' : 'them'} once signed in (the user model's rule lets them change their own record).`,
    },
  ];
}
