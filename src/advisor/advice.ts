// Advice at publish: what the rules of a version let end users do, read from the access matrix
// and the rules themselves (no data read), said before the app ships rather than found by users.
//   no-end-user-access      no end user (anonymous or signed in) can do anything at all
//   public-write            anonymous callers can create, change or delete a model's records
//   unreachable-model       no end user can do anything with a model (only administrators)
//   plaintext-secret-field  a field named like a password, secret, token or API key is readable by end users
//   rule-needs-index        a rule compares a column that has no index (every request scans the table)
// Rules that read the caller's other fields (`auth.role`) may let some users in: a model whose
// rules do is not called unreachable, nor the app closed.
import { variableUse, type Residual } from '../expressions/index.ts';
import type { CompiledApp, CompiledModel } from '../runtime/compiled-app.ts';
import { compiledRules } from '../runtime/data/expressions.ts';
import { ownerComparedFieldIds } from '../compiler/schema/rule-indexes.ts';
import { accessMatrix, signedInAuth, type AccessMatrix, type CallerCells } from './access-matrix.ts';
import { combined, OPERATIONS, ruleResiduals, type Operation } from './residuals.ts';
import { residualFields } from './render.ts';

export type AdviceCode = 'no-end-user-access' | 'public-write' | 'unreachable-model' | 'plaintext-secret-field' | 'rule-needs-index';

export interface Advice {
  code: AdviceCode;
  model?: string;
  message: string;
}

const SECRET_NAME = /password|passwd|secret|token|api[-_]?key/i;
const WRITES: readonly Operation[] = ['create', 'update', 'delete'];

const open = (cells: CallerCells): boolean => cells.anonymous !== 'never' || cells.signedIn !== 'never' || (cells.owner !== undefined && cells.owner !== 'never');

/** Whether a model's rules read a member of `auth` other than its id (a role, a team). */
function readsCallerFields(app: CompiledApp, model: CompiledModel): boolean {
  return compiledRules(app, model, model.accessControl).some((rule) => {
    if (!rule.compiled) return false;
    const use = variableUse(rule.compiled.ast, 'auth');
    return use.whole || [...use.members].some((member) => member !== 'id');
  });
}

/** A field an end user may read: its model readable by them and its own rules not denying them. */
function readableByEndUsers(app: CompiledApp, model: CompiledModel, name: string, cells: CallerCells): boolean {
  const field = model.fieldsByName.get(name)!;
  const callers: Array<[Record<string, unknown> | null, boolean]> = [
    [null, cells.anonymous !== 'never'],
    [signedInAuth(), cells.signedIn !== 'never' || (cells.owner !== undefined && cells.owner !== 'never')],
  ];
  return callers.some(([auth, modelReadable]) => {
    if (!modelReadable) return false;
    const visible: Residual = combined(ruleResiduals(app, model, field.accessControl, { auth, operation: 'read' }), field.accessControl, 'allow');
    return !(visible.kind === 'const' && !visible.value);
  });
}

/** The definition's write-only member of a field (never read back), read defensively: a member newer than this module. */
function writeOnly(app: CompiledApp, model: CompiledModel, fieldId: string): boolean {
  const field = app.definition.models.find((m) => m.id === model.id)?.fields.find((f) => f.id === fieldId);
  return (field as { writeOnly?: unknown } | undefined)?.writeOnly === true;
}

/** Columns with an index: the id, relationship columns (plan.ts) and those compared with `auth.id` (rule-indexes.ts). */
function indexedFields(app: CompiledApp, model: CompiledModel): Set<string> {
  const definitionModel = app.definition.models.find((m) => m.id === model.id)!;
  const ownerCompared = new Set(ownerComparedFieldIds(app.definition, definitionModel));
  const out = new Set<string>(['id']);
  for (const field of model.fields) if (field.relation || ownerCompared.has(field.id)) out.add(field.name);
  // Indexes the definition declares, read defensively (a model member newer than this module): a leading field counts.
  const declared = (definitionModel as { indexes?: Array<{ fields?: unknown }> }).indexes;
  for (const index of Array.isArray(declared) ? declared : []) {
    const first = Array.isArray(index?.fields) ? index.fields[0] : undefined;
    const field = model.fields.find((f) => f.name === first || f.id === first);
    if (field) out.add(field.name);
  }
  return out;
}

export function adviceFor(app: CompiledApp, matrix: AccessMatrix = accessMatrix(app)): Advice[] {
  const advice: Advice[] = [];
  const cellsOf = (model: CompiledModel) => matrix.models.find((m) => m.model === model.name)!.operations;
  const reachable = (model: CompiledModel) => readsCallerFields(app, model) || OPERATIONS.some((op) => open(cellsOf(model)[op]));
  if (app.models.length > 0 && !app.models.some(reachable)) {
    advice.push({
      code: 'no-end-user-access',
      message: 'No end user, signed in or not, can create, read, change or delete anything: only administrators can use this app. Add an allow rule (e.g. `auth != null && record.user == auth.id`).',
    });
  }
  for (const model of app.models) {
    const cells = cellsOf(model);
    const publicWrites = WRITES.filter((op) => cells[op].anonymous !== 'never');
    if (publicWrites.length > 0) {
      advice.push({ code: 'public-write', model: model.name, message: `Anyone, without signing in, can ${publicWrites.join(', ')} ${model.name} records. Require \`auth != null\` unless that is meant.` });
    }
    if (advice[0]?.code !== 'no-end-user-access' && !reachable(model)) {
      advice.push({ code: 'unreachable-model', model: model.name, message: `No end user can do anything with ${model.name}: its rules let only administrators in.` });
    }
    for (const field of model.fields) {
      // Set by the write-only field member where the definition has it: such a field is never read back.
      if (field.relation || !SECRET_NAME.test(field.name) || writeOnly(app, model, field.id)) continue;
      if (!readableByEndUsers(app, model, field.name, cells.read)) continue;
      advice.push({
        code: 'plaintext-secret-field',
        model: model.name,
        message: `${model.name}.${field.name} looks like a secret and end users can read it. Mark it write-only, hide it with a field rule, or keep it in the app's secrets.`,
      });
    }
    const indexed = indexedFields(app, model);
    const unindexed = new Set<string>();
    for (const op of OPERATIONS) {
      for (const rule of ruleResiduals(app, model, model.accessControl, { auth: signedInAuth(), operation: op })) {
        if (!rule.matches) continue;
        for (const name of residualFields(rule.matches)) {
          const field = model.fieldsByName.get(name);
          if (field?.column && !indexed.has(name)) unindexed.add(name);
        }
      }
    }
    for (const name of unindexed) {
      advice.push({ code: 'rule-needs-index', model: model.name, message: `A rule of ${model.name} compares ${name}, which has no index: each request reads the whole table. Add an index on ${model.name}.${name}.` });
    }
  }
  return advice;
}
