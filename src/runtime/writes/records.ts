import type { Executor } from '../../storage/db.ts';
import { sql, type RawBuilder } from 'kysely';
import { forbidden, notFound, unprocessable } from '../../errors.ts';
import { ident } from '../../storage/sql.ts';
import { uuidv7 } from '../../tools/ids.ts';
import type { CompiledApp, CompiledField, CompiledModel } from '../compiled-app.ts';
import { authOf, bypassesRules, type Caller } from '../caller.ts';
import { accessCondition } from '../data/rule-sql.ts';
import { bindFieldValue } from './bind.ts';
import { problemFromDatabase } from './pg-errors.ts';
import { readPlainRecord, type PlainRecord } from './plain-record.ts';
import { validateWrite } from './values.ts';
import { recordEvent } from './outbox.ts';

type Operation = 'create' | 'update' | 'delete';

/** The rule of `operation` as a WHERE condition on alias `t`: true for administrators and the system. */
function ruleCondition(app: CompiledApp, model: CompiledModel, caller: Caller, operation: Operation): RawBuilder<unknown> | null {
  if (bypassesRules(caller)) return sql`true`;
  const condition = accessCondition(app, model, { auth: authOf(caller), operation, now: new Date() }, 't');
  if (condition.kind === 'none') return null;
  return condition.kind === 'all' ? sql`true` : condition.sql;
}

async function ruleHolds(executor: Executor, app: CompiledApp, model: CompiledModel, id: string, condition: RawBuilder<unknown>): Promise<boolean> {
  const result = await sql<{ ok: boolean }>`
    select exists(select 1 from ${ident(app.schema, model.table)} t where t.id = ${id} and (${condition})) as ok`.execute(executor);
  return result.rows[0]?.ok === true;
}

/** Writes the relations stored outside the model's table: the partner's FK column, or a join table. */
async function writeRelation(executor: Executor, app: CompiledApp, field: CompiledField, id: string, value: unknown, replacing: boolean): Promise<void> {
  const relation = field.relation!;
  const ids = value === null ? [] : Array.isArray(value) ? (value as string[]) : [value as string];
  const target = app.modelsById.get(relation.targetModelId)!;
  if (relation.storage.kind === 'targetColumn') {
    const table = ident(app.schema, target.table);
    const fk = ident(relation.storage.column);
    if (replacing) await sql`update ${table} set ${fk} = null where ${fk} = ${id} and not (id = any(${ids}::uuid[]))`.execute(executor);
    const moved = await sql`update ${table} set ${fk} = ${id} where id = any(${ids}::uuid[])`.execute(executor);
    if (Number(moved.numAffectedRows ?? 0) !== ids.length) {
      throw unprocessable('A related record does not exist.', [{ path: `/${field.name}`, message: 'refers to a record that does not exist' }]);
    }
    return;
  }
  if (relation.storage.kind !== 'joinTable') return;
  const join = ident(app.schema, relation.storage.table);
  const self = ident(relation.storage.selfColumn);
  const other = ident(relation.storage.otherColumn);
  if (replacing) await sql`delete from ${join} where ${self} = ${id}`.execute(executor);
  if (ids.length > 0) {
    await sql`insert into ${join} (${self}, ${other}) select ${id}, unnest(${ids}::uuid[]) on conflict do nothing`.execute(executor);
  }
}

function ownColumns(values: Map<CompiledField, unknown>): Array<[CompiledField, unknown]> {
  return [...values].filter(([field]) => field.column !== null);
}

function elsewhere(values: Map<CompiledField, unknown>): Array<[CompiledField, unknown]> {
  return [...values].filter(([field]) => field.column === null && field.relation);
}

async function guarded<T>(model: CompiledModel, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw problemFromDatabase(error, model) ?? error;
  }
}

/** Creates a record inside the caller's transaction; the rule is checked against the new row. */
export async function createRecord(executor: Executor, app: CompiledApp, model: CompiledModel, body: unknown, caller: Caller): Promise<PlainRecord> {
  const { values } = validateWrite(model, body, 'create');
  const condition = ruleCondition(app, model, caller, 'create');
  if (!condition) throw forbidden(`You may not create ${model.resource}.`);
  const id = uuidv7();
  const columns = ownColumns(values);
  await guarded(model, async () => {
    await sql`insert into ${ident(app.schema, model.table)} (${sql.join([sql`id`, ...columns.map(([f]) => ident(f.column!))])})
      values (${sql.join([sql`${id}`, ...columns.map(([f, v]) => bindFieldValue(f, v))])})`.execute(executor);
    for (const [field, value] of elsewhere(values)) await writeRelation(executor, app, field, id, value, false);
  });
  if (!(await ruleHolds(executor, app, model, id, condition))) throw forbidden(`You may not create this ${model.name}.`);
  const record = (await readPlainRecord(executor, app, model, id))!;
  await recordEvent(executor, app, `${model.name}.created`, record);
  return record;
}

/** Updates the fields given; a record the caller may not update answers 404, as a missing one. */
export async function updateRecord(
  executor: Executor,
  app: CompiledApp,
  model: CompiledModel,
  id: string,
  body: unknown,
  caller: Caller,
): Promise<PlainRecord> {
  const { values } = validateWrite(model, body, 'update');
  const condition = ruleCondition(app, model, caller, 'update');
  const table = ident(app.schema, model.table);
  const locked = condition
    ? await sql`select t.id from ${table} t where t.id = ${id} and (${condition}) for update`.execute(executor)
    : { rows: [] };
  if (locked.rows.length === 0) throw notFound(`${model.name} ${id} was not found.`, '/id');
  const previous = (await readPlainRecord(executor, app, model, id))!;
  const columns = ownColumns(values);
  await guarded(model, async () => {
    const sets = [...columns.map(([f, v]) => sql`${ident(f.column!)} = ${bindFieldValue(f, v)}`), sql`updated_at = now()`];
    await sql`update ${table} set ${sql.join(sets)} where id = ${id}`.execute(executor);
    for (const [field, value] of elsewhere(values)) await writeRelation(executor, app, field, id, value, true);
  });
  // The changed row must still be the caller's to change: no moving records out of reach.
  if (!(await ruleHolds(executor, app, model, id, condition!))) throw forbidden(`This change would take the ${model.name} out of your reach.`);
  const record = (await readPlainRecord(executor, app, model, id))!;
  await recordEvent(executor, app, `${model.name}.updated`, record, previous);
  return record;
}

export async function deleteRecord(executor: Executor, app: CompiledApp, model: CompiledModel, id: string, caller: Caller): Promise<PlainRecord> {
  const condition = ruleCondition(app, model, caller, 'delete');
  const table = ident(app.schema, model.table);
  const found = condition ? await sql`select t.id from ${table} t where t.id = ${id} and (${condition}) for update`.execute(executor) : { rows: [] };
  if (found.rows.length === 0) throw notFound(`${model.name} ${id} was not found.`, '/id');
  const record = (await readPlainRecord(executor, app, model, id))!;
  await guarded(model, () => sql`delete from ${table} where id = ${id}`.execute(executor));
  await recordEvent(executor, app, `${model.name}.deleted`, record);
  return record;
}
