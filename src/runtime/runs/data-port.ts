// The data layer as actions see it (the engine's DataPort), over the app's tables inside the run's
// one transaction and under the caller's access rules: the same reads and writes as the generated
// API. Records come back as actions expect them: fields by name, relationships as ids.
import { sql } from 'kysely';
import { Problem } from '../../errors.ts';
import type { Executor } from '../../storage/db.ts';
import { authOf, bypassesRules, type Caller } from '../caller.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { listRecords, type JsonRecord, type ReadContext } from '../data/read.ts';
import { createRecordWithView, deleteRecord, updateRecordWithView } from '../writes/records.ts';
import { ActionError } from '../actions/errors.ts';
import type { DataPort, DataRecord, FindOptions } from '../actions/types.ts';
import { RecordView } from './record-view.ts';

export interface TransactionDataOptions {
  env: Record<string, string>;
  /**
   * Wrap each call in a savepoint, so a failed statement leaves the transaction usable for the
   * error handler that runs next. Only needed when the action has a handler: an unhandled
   * failure rolls the whole transaction back anyway.
   */
  savepoints: boolean;
}

export class TransactionData implements DataPort {
  readonly #now = new Date();
  readonly #views = new Map<string, RecordView>();
  /** The first database failure (not a data one) seen by a call: the run's caller rethrows it. */
  infrastructureError: unknown = null;

  constructor(
    private readonly trx: Executor,
    private readonly app: CompiledApp,
    private readonly caller: Caller,
    private readonly options: TransactionDataOptions,
  ) {}

  get(model: string, id: string): Promise<DataRecord | null> {
    const m = this.#model(model);
    return this.#guard(async () => this.#view(m).read(this.trx, id));
  }

  find(model: string, options: FindOptions): Promise<DataRecord[]> {
    const m = this.#model(model);
    // The catalogue allows limit 0 (nothing wanted); the list query starts at 1.
    if (options.limit === 0) return Promise.resolve([]);
    return this.#guard(async () => {
      const page = await listRecords(this.trx, this.app, m, {
        ctx: this.#readContext(),
        limit: options.limit,
        offset: options.offset,
        sort: options.sort,
        filter: options.filter,
      });
      return page.items.map((record) => flatten(m, record));
    });
  }

  count(model: string, options: { filter?: string }): Promise<number> {
    const m = this.#model(model);
    return this.#guard(async () => {
      const page = await listRecords(this.trx, this.app, m, { ctx: this.#readContext(), limit: 1, filter: options.filter });
      return page.total;
    });
  }

  // Writes answer the caller's view of the written record, read in the statement that checks
  // the write's rule (no read-back); a record the caller may write but not read is just its id.
  create(model: string, values: Record<string, unknown>): Promise<DataRecord> {
    const m = this.#model(model);
    return this.#guard(async () => {
      const view = this.#view(m);
      const created = await createRecordWithView(this.trx, this.app, m, values, this.caller, view.sql ?? undefined);
      return view.finish(created.view) ?? { id: created.record.id };
    });
  }

  update(model: string, id: string, values: Record<string, unknown>): Promise<DataRecord | null> {
    const m = this.#model(model);
    return this.#guard(async () => {
      const view = this.#view(m);
      const updated = await missingAsNull(() => updateRecordWithView(this.trx, this.app, m, id, values, this.caller, view.sql ?? undefined));
      if (!updated) return null;
      return view.finish(updated.view) ?? { id: updated.record.id };
    });
  }

  delete(model: string, id: string): Promise<DataRecord | null> {
    const m = this.#model(model);
    return this.#guard(async () => {
      // Read first, under the read rules: the output shows what the caller could see of it.
      const before = await this.#view(m).read(this.trx, id);
      const deleted = await missingAsNull(() => deleteRecord(this.trx, this.app, m, id, this.caller));
      if (!deleted) return null;
      return before ?? { id: deleted.id };
    });
  }

  /** One view per model for the whole run: the caller and the run's `now` do not change. */
  #view(model: CompiledModel): RecordView {
    let view = this.#views.get(model.id);
    if (!view) {
      view = RecordView.of(this.app, model, this.#readContext());
      this.#views.set(model.id, view);
    }
    return view;
  }

  #readContext(): ReadContext {
    return { auth: authOf(this.caller), operation: 'read', now: this.#now, env: this.options.env, bypassRules: bypassesRules(this.caller) };
  }

  /** A model by name or id; an unknown one is the effect's failure (400), not the run's. */
  #model(nameOrId: string): CompiledModel {
    const model = this.app.models.find((m) => m.name === nameOrId) ?? this.app.modelsById.get(nameOrId);
    if (!model) throw new ActionError(400, 'unknown_model', `This application has no model '${nameOrId}'.`);
    return model;
  }

  async #guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      if (!this.options.savepoints) return await work();
      await sql`savepoint effect_call`.execute(this.trx);
      let result: T;
      try {
        result = await work();
      } catch (error) {
        await sql`rollback to savepoint effect_call`.execute(this.trx);
        await sql`release savepoint effect_call`.execute(this.trx);
        throw error;
      }
      await sql`release savepoint effect_call`.execute(this.trx);
      return result;
    } catch (error) {
      if (isInfrastructureError(error)) this.infrastructureError ??= error;
      throw error;
    }
  }
}

/**
 * A failure of the database itself, not of the data: connection lost, deadlock or serialization
 * failure, lock timeout, resources, shutdown. The run is then not the action's failure: its caller retries.
 */
export function isInfrastructureError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return /^(08|40|53|57|58|XX)/.test(code) || code === '55P03' || /^E[A-Z]+$/.test(code);
  return error instanceof Error && /connection (terminated|closed|ended)|not queryable|is closed/i.test(error.message);
}

/** update/delete answer 404 for a record the caller may not reach; the port says null. */
async function missingAsNull<T>(work: () => Promise<T>): Promise<T | null> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof Problem && error.status === 404) return null;
    throw error;
  }
}

/** Relationships as ids: an embedded record becomes its id, a list of them a list of ids. */
export function flatten(model: CompiledModel, record: JsonRecord): DataRecord {
  const out: DataRecord = { ...record };
  for (const field of model.fields) {
    if (!field.relation || !(field.name in out)) continue;
    const value = out[field.name];
    out[field.name] = Array.isArray(value) ? value.map(idOf) : idOf(value);
  }
  return out;
}

function idOf(value: unknown): unknown {
  return value !== null && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string' ? (value as { id: string }).id : value;
}
