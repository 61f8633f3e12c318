// The access matrix: per model and operation, what each kind of caller may do, by partial
// evaluation of the rules alone (no data read). `always` and `never` where the rules decide
// without looking at the record; else `{when}`, the record-dependent rest, written as CEL.
//   anonymous  nobody signed in (auth null)
//   signedIn   a signed-in user with no other field set (no role): comparisons with their id read `auth.id`
//   owner      the same user on their own records (`record.<owner> == auth.id` taken as true),
//              where the model has an owner path (a to-one relationship to the user model, or the user model itself)
//   admin      management credentials: rules bypassed, always
import type { Residual } from '../expressions/index.ts';
import type { CompiledApp, CompiledModel } from '../runtime/compiled-app.ts';
import { residualText } from './render.ts';
import { assumingOwner, modelAccess, OPERATIONS, ownerFieldOf, SIGNED_IN_ID, type Operation } from './residuals.ts';

export type Cell = 'always' | 'never' | { when: string };

export interface CallerCells {
  anonymous: Cell;
  signedIn: Cell;
  owner?: Cell;
  admin: Cell;
}

export interface ModelMatrix {
  model: string;
  resource: string;
  /** The field that says whose a record is, when there is one (`id` on the user model). */
  ownerField: string | null;
  operations: Record<Operation, CallerCells>;
}

export interface AccessMatrix {
  applicationId: string;
  serverVersion: string;
  models: ModelMatrix[];
}

export function cellOf(r: Residual): Cell {
  if (r.kind === 'const') return r.value ? 'always' : 'never';
  return { when: residualText(r, SIGNED_IN_ID) };
}

/** The signed-in stand-in: an id and nothing else (`auth.role` and the like are unset). */
export function signedInAuth(): Record<string, unknown> {
  return { id: SIGNED_IN_ID };
}

export function modelMatrix(app: CompiledApp, model: CompiledModel): ModelMatrix {
  const ownerField = ownerFieldOf(app, model);
  const operations = {} as Record<Operation, CallerCells>;
  for (const operation of OPERATIONS) {
    const signedIn = modelAccess(app, model, { auth: signedInAuth(), operation });
    operations[operation] = {
      anonymous: cellOf(modelAccess(app, model, { auth: null, operation })),
      signedIn: cellOf(signedIn),
      ...(ownerField ? { owner: cellOf(assumingOwner(signedIn, ownerField, SIGNED_IN_ID)) } : {}),
      admin: 'always',
    };
  }
  return { model: model.name, resource: model.resource, ownerField, operations };
}

export function accessMatrix(app: CompiledApp): AccessMatrix {
  return { applicationId: app.applicationId, serverVersion: app.serverVersion, models: app.models.map((model) => modelMatrix(app, model)) };
}

/** A short summary per model: which operations any end user (not only an administrator) may ever do. */
export interface MatrixSummary {
  model: string;
  anonymous: Operation[];
  signedIn: Operation[];
}

export function matrixSummary(matrix: AccessMatrix): MatrixSummary[] {
  const some = (cells: CallerCells, who: 'anonymous' | 'signedIn') => cells[who] !== 'never' || (who === 'signedIn' && cells.owner !== undefined && cells.owner !== 'never');
  return matrix.models.map((m) => ({
    model: m.model,
    anonymous: OPERATIONS.filter((op) => some(m.operations[op], 'anonymous')),
    signedIn: OPERATIONS.filter((op) => some(m.operations[op], 'signedIn')),
  }));
}
