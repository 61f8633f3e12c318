// A write and its read-back as ONE statement (runtime/writes/records.ts decides when): the row
// comes from the write's RETURNING, aliased `t`, so the rule, the plain record and the caller's
// view are computed on the written row without reading it again, and the outbox event is recorded
// in the same statement when the rule holds (a refusal throws, rolling the transaction back).
// Only for expressions with no subquery (runtime/writes/self-contained.ts): a subquery would see
// the tables as they were before the statement.
import type { Executor } from '../../storage/db.ts';
import { sql, type RawBuilder } from 'kysely';
import { PREPARED } from '../../storage/prepared.ts';
import { ident } from '../../storage/sql.ts';
import { uuidv7 } from '../../tools/ids.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { plainJson, type PlainRecord } from './plain-record.ts';

export interface MergedWrite {
  ok: boolean;
  record: PlainRecord;
  view: unknown;
}

interface Row {
  ok: boolean | null;
  record: PlainRecord | string | null;
  view: unknown;
  previous?: PlainRecord | string | null;
}

function parsed(record: PlainRecord | string): PlainRecord {
  return typeof record === 'string' ? (JSON.parse(record) as PlainRecord) : record;
}

/** `w`: the rule, plain record and view on the written row (CTE `written`), as afterWrite computes them. */
function readBack(app: CompiledApp, model: CompiledModel, condition: RawBuilder<unknown>, view: RawBuilder<unknown> | undefined): RawBuilder<unknown> {
  return sql`w as (
      select coalesce((${condition}), false) as ok, ${plainJson(app, model)} as record, ${view ?? sql`null`} as view
      from written t
    )`;
}

/** Inserts `columns` (with `values`) as record `id` and reads it back; the event is `{Model}.created`. */
export async function insertReadBack(
  executor: Executor,
  app: CompiledApp,
  model: CompiledModel,
  id: string,
  columns: RawBuilder<unknown>[],
  values: RawBuilder<unknown>[],
  condition: RawBuilder<unknown>,
  view: RawBuilder<unknown> | undefined,
): Promise<MergedWrite> {
  const result = await sql<Row>`${sql.raw(PREPARED)}with written as (
      insert into ${ident(app.schema, model.table)} (${sql.join([sql`id`, ...columns])}) values (${sql.join([sql`${id}`, ...values])})
      returning *
    ), ${readBack(app, model, condition, view)}, e as (
      insert into appbuilder.events (id, application_id, name, payload, previous)
      select ${uuidv7()}, ${app.applicationId}, ${`${model.name}.created`}, w.record::jsonb, null
      from w where w.ok
    )
    select ok, record, view from w`.execute(executor);
  const row = result.rows[0];
  if (!row?.record) throw new Error(`The written ${model.name} ${id} is gone`);
  return { ok: row.ok === true, record: parsed(row.record), view: row.view };
}

/**
 * Locks record `id` where `condition` holds, takes its record as it was, applies `sets` and reads
 * the changed row back; the event is `{Model}.updated` with `previous`. Null when no row was
 * locked (missing, or not the caller's to update).
 */
export async function updateReadBack(
  executor: Executor,
  app: CompiledApp,
  model: CompiledModel,
  id: string,
  sets: RawBuilder<unknown>[],
  condition: RawBuilder<unknown>,
  view: RawBuilder<unknown> | undefined,
): Promise<(MergedWrite & { previous: PlainRecord }) | null> {
  const table = ident(app.schema, model.table);
  const result = await sql<Row>`${sql.raw(PREPARED)}with p as (
      select t.id, ${plainJson(app, model)} as record from ${table} t where t.id = ${id} and (${condition}) for update of t
    ), written as (
      update ${table} t set ${sql.join(sets)} from p where t.id = p.id returning t.*
    ), ${readBack(app, model, condition, view)}, e as (
      insert into appbuilder.events (id, application_id, name, payload, previous)
      select ${uuidv7()}, ${app.applicationId}, ${`${model.name}.updated`}, w.record::jsonb, p.record::jsonb
      from w, p where w.ok
    )
    select w.ok, w.record, w.view, p.record as previous from p left join w on true`.execute(executor);
  const row = result.rows[0];
  if (!row?.previous) return null;
  if (!row.record) throw new Error(`The written ${model.name} ${id} is gone`);
  return { ok: row.ok === true, record: parsed(row.record), view: row.view, previous: parsed(row.previous) };
}

/**
 * Inserts several records (`rows[i]`: its id and one value per column, `undefined` for the
 * column's default) in ONE statement, reading each back as insertReadBack does: whether it passes
 * `condition`, and its `{Model}.created` event, recorded in the rows' order when every row passes.
 * Answers whether every row passed (when one did not, the caller rolls the statement back).
 */
export async function insertManyReadBack(
  executor: Executor,
  app: CompiledApp,
  model: CompiledModel,
  columns: RawBuilder<unknown>[],
  rows: Array<{ id: string; values: Array<RawBuilder<unknown> | undefined> }>,
  condition: RawBuilder<unknown>,
): Promise<boolean> {
  const tuples = rows.map((row) => sql`(${sql.join([sql`${row.id}`, ...row.values.map((v) => v ?? sql`default`)])})`);
  const ids = rows.map((row) => row.id);
  const events = rows.map(() => uuidv7());
  const result = await sql<{ failed: number | string }>`with written as (
      insert into ${ident(app.schema, model.table)} (${sql.join([sql`id`, ...columns])}) values ${sql.join(tuples)}
      returning *
    ), w as (
      select t.id, coalesce((${condition}), false) as ok, ${plainJson(app, model)} as record from written t
    ), f as (
      select count(*) filter (where not w.ok) as failed from w
    ), e as (
      insert into appbuilder.events (id, application_id, name, payload, previous)
      select r.e, ${app.applicationId}, ${`${model.name}.created`}, w.record::jsonb, null
      from unnest(cast(${ids} as uuid[]), cast(${events} as uuid[])) with ordinality as r(id, e, n)
      join w on w.id = r.id, f where f.failed = 0
      order by r.n
    )
    select failed from f`.execute(executor);
  return Number(result.rows[0]?.failed ?? 1) === 0;
}
