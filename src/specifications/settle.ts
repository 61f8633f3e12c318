/**
 * Makes a built definition pass the same validation as one saved through the API
 * (`definition/validate.ts`): validate, leave out what each problem names (a field's
 * default, enum or minimum first; else the field, the model, the action and its triggers, the
 * requirement…), repeat. Every removal is a warning carrying the element's source.
 */
import { Problem, type ProblemDetail } from '../errors.ts';
import { validateDefinition } from '../definition/validate.ts';
import type { AppDefinition, Field, Model } from '../definition/schema.ts';
import { defaultModelAccess } from '../definition/edits/models.ts';
import { modelIdFor, fieldIdFor } from '../definition/edits/ids.ts';
import type { Source, SpecWarning } from './merge.ts';

/** Where each element of the definition came from, by object identity (indices move as things are left out). */
export type SourceOf = WeakMap<object, Source>;

const MAX_ROUNDS = 100;

/** A User model with a name and an email, for content that describes no user model. */
export function addUserModel(def: AppDefinition): Model {
  const taken = new Set(def.models.map((m) => m.id));
  const takenFields = new Set(def.models.flatMap((m) => m.fields.map((f) => f.id)));
  const names = new Set(def.models.map((m) => m.name));
  let name = 'User';
  for (let n = 2; names.has(name); n++) name = `User${n}`;
  const text = (field: string): Field => ({
    id: fieldIdFor(name, field, takenFields),
    name: field,
    relationshipOwner: true,
    min: 0,
    max: 1,
    to: 'p_TEXT',
    accessControl: { rules: [] },
  });
  const model: Model = { id: modelIdFor(name, taken), name, fields: [text('name'), text('email')], accessControl: defaultModelAccess() };
  def.models.push(model);
  def.userModelId = model.id;
  def.domainModel?.models.push({
    name,
    fields: [
      { name: 'name', type: 'p_TEXT' },
      { name: 'email', type: 'p_TEXT' },
    ],
    requirements: [],
    isUserModel: true,
  });
  return model;
}

interface Removal {
  describe: string;
  source?: Source;
  apply: () => void;
}

/** What to do about one problem; null when the problem names nothing this module can leave out. */
function removalFor(def: AppDefinition, problem: ProblemDetail, sourceOf: SourceOf): Removal | null {
  const field = /^\/models\/(\d+)\/fields\/(\d+)(?:\/([^/]+))?/.exec(problem.path);
  if (field) {
    const model = def.models[Number(field[1])];
    const target = model?.fields[Number(field[2])];
    if (!model || !target) return null;
    const member = field[3];
    if (member === 'defaultValue' || member === 'enum' || member === 'computed' || member === 'writeOnly') {
      return { describe: `the ${member} of ${model.name}.${target.name}`, source: sourceOf.get(target), apply: () => delete target[member] };
    }
    if (member === 'min') return { describe: `the minimum of ${model.name}.${target.name}`, source: sourceOf.get(target), apply: () => (target.min = 0) };
    return { describe: `the field ${model.name}.${target.name}`, source: sourceOf.get(target), apply: () => removeField(def, model, target) };
  }
  const model = /^\/models\/(\d+)/.exec(problem.path);
  if (model) {
    const target = def.models[Number(model[1])];
    if (!target) return null;
    return { describe: `the model ${target.name}`, source: sourceOf.get(target), apply: () => removeModel(def, target) };
  }
  if (problem.path.startsWith('/userModelId')) {
    return { describe: 'the user model (a User model with name and email is added)', apply: () => addUserModel(def) };
  }
  const action = /^\/actions\/(\d+)/.exec(problem.path);
  if (action) {
    const target = def.actions[Number(action[1])];
    if (!target) return null;
    return {
      describe: `the action ${target.id} and its triggers`,
      source: sourceOf.get(target),
      apply: () => {
        def.actions = def.actions.filter((a) => a !== target);
        def.triggers = def.triggers.filter((t) => t.actionId !== target.id);
      },
    };
  }
  const trigger = /^\/triggers\/(\d+)/.exec(problem.path);
  if (trigger) {
    const target = def.triggers[Number(trigger[1])];
    if (!target) return null;
    return {
      describe: `the trigger ${target.trigger.id} and its action`,
      source: sourceOf.get(target),
      apply: () => {
        def.triggers = def.triggers.filter((t) => t !== target);
        if (!def.triggers.some((t) => t.actionId === target.actionId)) def.actions = def.actions.filter((a) => a.id !== target.actionId);
      },
    };
  }
  const requirement = /^\/requirements\/(\d+)/.exec(problem.path);
  if (requirement) {
    const target = def.requirements[Number(requirement[1])];
    if (!target) return null;
    return { describe: `the requirement ${target.id}`, source: sourceOf.get(target), apply: () => removeRequirement(def, target.id) };
  }
  const persona = /^\/personas\/(\d+)/.exec(problem.path);
  if (persona && def.personas) {
    const target = def.personas[Number(persona[1])];
    if (!target) return null;
    return { describe: `the persona ${target.name}`, source: sourceOf.get(target), apply: () => (def.personas = def.personas!.filter((p) => p !== target)) };
  }
  for (const member of ['appDraft', 'appOverview'] as const) {
    if (problem.path.startsWith(`/${member}`)) return { describe: `the ${member}`, apply: () => (def[member] = null) };
  }
  return null;
}

function removeField(def: AppDefinition, model: Model, field: Field): void {
  model.fields = model.fields.filter((f) => f !== field);
  // A partner that named it by id names nothing now: it stays, a one-way pointer.
  for (const other of def.models) for (const f of other.fields) if (f.partner === field.id) delete f.partner;
  const domain = def.domainModel?.models.find((m) => m.name === model.name);
  if (domain) domain.fields = domain.fields.filter((f) => f.name !== field.name);
}

function removeModel(def: AppDefinition, model: Model): void {
  def.models = def.models.filter((m) => m !== model);
  for (const other of def.models) {
    for (const f of other.fields.filter((x) => x.to === model.id)) removeField(def, other, f);
  }
  if (def.domainModel) def.domainModel.models = def.domainModel.models.filter((m) => m.name !== model.name);
  if (def.userModelId === model.id) {
    const next = def.models.find((m) => m.fields.some((f) => f.name === 'email' && f.to === 'p_TEXT'));
    if (next) def.userModelId = next.id;
    else addUserModel(def);
  }
}

function removeRequirement(def: AppDefinition, id: string): void {
  def.requirements = def.requirements.filter((r) => r.id !== id);
  const drop = (refs: string[] | undefined) => refs?.filter((r) => r !== id);
  for (const m of def.models) if (m.referenceRequirements) m.referenceRequirements = drop(m.referenceRequirements);
  for (const a of def.actions) if (a.referenceRequirements) a.referenceRequirements = drop(a.referenceRequirements);
  for (const t of def.triggers) if (t.referenceRequirements) t.referenceRequirements = drop(t.referenceRequirements);
}

/** Validates `def` in place until it passes; returns the warnings for what was left out. */
export function settle(def: AppDefinition, sourceOf: SourceOf): SpecWarning[] {
  const warnings: SpecWarning[] = [];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let problems: ProblemDetail[];
    try {
      validateDefinition(def);
      return warnings;
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      problems = error.errors.length > 0 ? error.errors : [{ path: '', message: error.message }];
    }
    // Every problem of this round, resolved against the definition as it was, then applied.
    const removals: Removal[] = [];
    const seen = new Set<string>();
    for (const problem of problems) {
      const removal = removalFor(def, problem, sourceOf);
      if (!removal || seen.has(removal.describe)) continue;
      seen.add(removal.describe);
      removals.push(removal);
      warnings.push({ ...removal.source, message: `Left out ${removal.describe}: ${problem.message}` });
    }
    if (removals.length === 0) {
      throw new Error(`The built definition does not validate and nothing named can be left out: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`);
    }
    for (const removal of removals) removal.apply();
  }
  throw new Error(`The built definition still does not validate after ${MAX_ROUNDS} rounds.`);
}
