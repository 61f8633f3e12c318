// A record as actions see it (fields by name, relationships as ids, under the caller's read and
// field rules), built by PostgreSQL on the row aliased `t`. The same JSON as the generated API's
// record with every embedded record replaced by its id, without building the embedded records:
// RecordJson's unexpanded form lists the same ids in the same order. One SQL expression, so a
// write can read it back in the statement that checks its rule (writes/records.ts).
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../storage/db.ts';
import { PREPARED } from '../../storage/prepared.ts';
import { reusedSql } from '../../storage/raw-compiler.ts';
import { isUuid } from '../../tools/ids.ts';
import { ANONYMOUS_CALLER, CallerCache, RULE_BYPASSING_CALLER } from '../caller-cache.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { tableOf } from '../data/columns.ts';
import { fillComputed } from '../data/computed-js.ts';
import type { ReadContext } from '../data/read.ts';
import { RecordJson } from '../data/record-json.ts';
import { readsAuthAndOperationOnly } from '../data/rule-sql.ts';
import type { DataRecord } from '../actions/types.ts';

/** Whether a model's view follows from the caller alone: no computed field, no rule reading `now` or `env`. */
function viewDependsOnCallerOnly(app: CompiledApp, model: CompiledModel): boolean {
  if (model.fields.some((field) => field.computed !== undefined)) return false;
  return [model.accessControl, ...model.fields.map((field) => field.accessControl)].every((control) => readsAuthAndOperationOnly(app, model, control));
}

const callerOnly = new WeakMap<CompiledModel, boolean>();
/** Views kept per caller (caller-cache.ts). */
const viewsByCaller = new CallerCache<RecordView>();

export class RecordView {
  /**
   * The view of `model` for the caller of `ctx`: built once per caller and kept with their `auth`
   * object when it depends on nothing else; else built for this run.
   */
  static of(app: CompiledApp, model: CompiledModel, ctx: ReadContext): RecordView {
    let reusable = callerOnly.get(model);
    if (reusable === undefined) callerOnly.set(model, (reusable = viewDependsOnCallerOnly(app, model)));
    if (!reusable) return new RecordView(app, model, ctx);
    const caller = ctx.bypassRules === true ? RULE_BYPASSING_CALLER : (ctx.auth ?? ANONYMOUS_CALLER);
    return viewsByCaller.get(caller, model, '', () => {
      const view = new RecordView(app, model, ctx);
      if (view.sql) reusedSql(view.sql);
      return view;
    });
  }

  readonly #json: RecordJson;
  /** `(record)::text` where the caller may read the row `t`, else null; null when they may read none. */
  readonly sql: RawBuilder<unknown> | null;

  constructor(
    private readonly app: CompiledApp,
    private readonly model: CompiledModel,
    private readonly ctx: ReadContext,
  ) {
    this.#json = new RecordJson(app, { auth: ctx.auth, operation: 'read', now: ctx.now, env: ctx.env ?? {} }, ctx.bypassRules === true);
    const condition = this.#json.readCondition(model, 't');
    const record = sql`(${this.#json.record(model, 't', false)})::text`;
    this.sql = condition.kind === 'none' ? null : condition.kind === 'all' ? record : sql`case when coalesce((${condition.sql}), false) then ${record} end`;
  }

  /** The record from the text `sql` gave; null when the caller may not read it. */
  finish(text: unknown): DataRecord | null {
    if (typeof text !== 'string') return null;
    const record = JSON.parse(text) as DataRecord;
    if (this.#json.jsComputed.size > 0) fillComputed(this.app, this.model, [record], this.#json.jsComputed, { now: this.ctx.now, env: this.ctx.env ?? {} });
    return record;
  }

  /** Reads record `id`; null when it does not exist or the caller may not read it. */
  async read(executor: Executor, id: string): Promise<DataRecord | null> {
    if (this.sql === null || typeof id !== 'string' || !isUuid(id)) return null;
    const result = await sql<{ body: string | null }>`${sql.raw(PREPARED)}select ${this.sql} as body from ${tableOf(this.app, this.model)} t where t.id = cast(${id} as uuid)`.execute(executor);
    return this.finish(result.rows[0]?.body);
  }
}
