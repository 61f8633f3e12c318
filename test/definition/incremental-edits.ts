// Random edits of a large definition for the incremental-validation tests (issue 28): each edits
// a definition in place, valid and not; `judge` turns a validation into a status and its problems.
import { Problem } from '../../src/errors.ts';
import type { AppDefinition, Model } from '../../src/definition/schema.ts';
import { sameJson } from '../../src/definition/versioning/change.ts';
import { fieldIdOf, modelIdOf } from './incremental-app.ts';

export const N = 600;
export const GENERATED = N - 2;
export type Outcome = { status: number; errors: Array<{ path: string; message: string }> };

export function judge(run: () => unknown): Outcome {
  try {
    run();
    return { status: 200, errors: [] };
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    return { status: error.status, errors: error.errors.map((e) => ({ path: e.path, message: e.message })) };
  }
}

export const model = (def: AppDefinition, i: number): Model => def.models.find((m) => m.id === modelIdOf(i))!;
export const fieldOf = (def: AppDefinition, i: number, name: string) => model(def, i).fields.find((f) => f.id === fieldIdOf(i, name));
export const user = (def: AppDefinition): Model => def.models.find((m) => m.id === def.userModelId)!;

/** One edit of a definition in place: `i` picks a generated model, `k` a name or variant. */
export type Edit = { label: string; apply: (def: AppDefinition, i: number, k: number) => void };

export const EDITS: Edit[] = [
  { label: 'rename a field', apply: (d, i, k) => void (fieldOf(d, i, 'f1') && (fieldOf(d, i, 'f1')!.name = `renamed${k}`)) },
  { label: 'rename a field to a name the model has', apply: (d, i) => void (fieldOf(d, i, 'f1') && (fieldOf(d, i, 'f1')!.name = 'f3')) },
  { label: 'rename a field a rule reads', apply: (d, i, k) => void (fieldOf(d, i, 'f0') && (fieldOf(d, i, 'f0')!.name = `gone${k}`)) },
  { label: 'remove a field a rule reads', apply: (d, i) => void (model(d, i).fields = model(d, i).fields.filter((f) => f.name !== 'f2')) },
  { label: 'change the type of a field a rule reads', apply: (d, i) => void (fieldOf(d, i, 'f2') && (fieldOf(d, i, 'f2')!.to = 'p_NUMBER')) },
  { label: 'an expression that does not parse', apply: (d, i) => void (model(d, i).accessControl.rules[0] = { access: 'allow', criteria: 'record.f0 ==' }) },
  { label: 'an expression naming no field', apply: (d, i, k) => void (model(d, i).accessControl.rules[0] = { access: 'allow', criteria: `record.nothing${k} == 1` }) },
  { label: 'a rule reading auth.name', apply: (d, i) => void (model(d, i).accessControl.rules[0] = { access: 'allow', criteria: "auth != null && auth.name != ''" }) },
  { label: 'rename a user model field', apply: (d, _i, k) => void (user(d).fields.find((f) => f.name === 'name') && (user(d).fields.find((f) => f.name === 'name')!.name = `fullName${k}`)) },
  { label: 'a dangling relationship', apply: (d, i) => void (fieldOf(d, i, 'parent') && (fieldOf(d, i, 'parent')!.to = 'urn:svc:model:missing')) },
  { label: 'rename a model', apply: (d, i, k) => void (model(d, i).name = `Thing${k}`) },
  { label: 'rename a model to a name taken', apply: (d, i) => void (model(d, i).name = `Entity${(i + 1) % GENERATED}`) },
  { label: 'a model name that sanitises like another', apply: (d, i) => void (model(d, i).name = `Entity-${(i + 1) % GENERATED}`) },
  { label: 'a model named Request', apply: (d, i) => void (model(d, i).name = 'Request') },
  { label: 'a computed field', apply: (d, i, k) => void model(d, i).fields.push({ id: `urn:svc:edge:c${i}-${k}`, name: `c${k}`, relationshipOwner: true, min: 0, max: 1, to: 'p_NUMBER', computed: k % 2 ? 'record.f1 * 2' : 'record.f0 * 2', accessControl: { rules: [] } }) },
  { label: 'a default expression of the wrong type', apply: (d, i) => void (fieldOf(d, i, 'f6') && (fieldOf(d, i, 'f6')!.defaultValue = { expression: "'five'" })) },
  { label: 'a shape error', apply: (d, i) => void ((fieldOf(d, i, 'f4') as unknown as { min: unknown }).min = 'one') },
  { label: 'remove a model others point to', apply: (d, i) => void (d.models = d.models.filter((m) => m.id !== modelIdOf(i))) },
  { label: 'a field id another model has', apply: (d, i) => void model(d, i).fields.push({ id: fieldIdOf((i + 1) % GENERATED, 'f1'), name: 'copy', relationshipOwner: true, min: 0, max: 1, to: 'p_TEXT', accessControl: { rules: [] } }) },
  { label: 'a second field pointing back', apply: (d, i) => void model(d, i).fields.push({ id: `urn:svc:edge:back${i}`, name: 'back', relationshipOwner: true, min: 0, max: null, to: modelIdOf((i + 1) % GENERATED), accessControl: { rules: [] } }) },
  { label: 'the user model loses its email', apply: (_d, _i, k) => void (user(_d).fields.find((f) => f.name === 'email') && (user(_d).fields.find((f) => f.name === 'email')!.name = `mail${k}`)) },
  { label: 'a one-to-one pair both owning', apply: (d, i) => void (fieldOf(d, i, 'children') && (fieldOf(d, i, 'children')!.max = 1)) },
];

/**
 * `edit` applied to a copy of the sealed `def`, then the copy's unchanged members and models
 * replaced by the sealed ones: what an edit sharing what it does not change gives.
 */
export function sharing(def: AppDefinition, edit: (d: AppDefinition) => void): AppDefinition {
  const next = structuredClone(def) as AppDefinition & Record<string, unknown>;
  edit(next);
  const before = def as AppDefinition & Record<string, unknown>;
  for (const key of Object.keys(next)) if (sameJson(next[key], before[key])) next[key] = before[key];
  const byId = new Map(def.models.map((m) => [m.id, m]));
  if (next.models !== def.models) next.models = next.models.map((m) => (byId.has(m.id) && sameJson(m, byId.get(m.id)) ? byId.get(m.id)! : m));
  return next;
}

