// The create rule judged on the record a create would make: the record is written as the system
// (defaults filled in, the caller's rules not applied) inside a savepoint, the rules are checked
// on it with the runtime's rule SQL, and the savepoint is rolled back. A body the model refuses
// outright (a missing required field) leaves the record-dependent rules `per-row`. Likewise an
// update's rule on the record as the change would leave it (an update must keep the record in the
// caller's reach).
import { Problem } from '../errors.ts';
import type { Db } from '../storage/db.ts';
import type { CompiledApp, CompiledModel } from '../runtime/compiled-app.ts';
import { createRecord, updateRecord } from '../runtime/writes/records.ts';
import { modelChecks, type Check } from './explain-checks.ts';
import type { Known } from './residuals.ts';

class Undo extends Error {
  constructor(readonly checks: Check[]) {
    super('undo the probe');
  }
}

export async function probeCreate(rdb: Db, app: CompiledApp, model: CompiledModel, body: unknown, known: Known): Promise<Check[]> {
  try {
    await rdb.kysely.transaction().execute(async (trx) => {
      const created = await createRecord(trx, app, model, body, { kind: 'system' });
      throw new Undo(await modelChecks(trx, app, model, known, { id: created.id }));
    });
  } catch (error) {
    if (error instanceof Undo) return error.checks;
    if (!(error instanceof Problem)) throw error;
  }
  return modelChecks(rdb.kysely, app, model, known, null);
}

/** The update rule's checks on record `id` as `body` would leave it; empty when the body is refused outright. */
export async function probeUpdate(rdb: Db, app: CompiledApp, model: CompiledModel, id: string, body: unknown, known: Known): Promise<Check[]> {
  try {
    await rdb.kysely.transaction().execute(async (trx) => {
      await updateRecord(trx, app, model, id, body, { kind: 'system' });
      throw new Undo(await modelChecks(trx, app, model, known, { id }));
    });
  } catch (error) {
    if (error instanceof Undo) return error.checks;
    if (!(error instanceof Problem)) throw error;
  }
  return [];
}
