import type { Executor } from '../../storage/db.ts';
import { sql, type RawBuilder } from 'kysely';
import { forbidden } from '../../errors.ts';
import { PREPARED } from '../../storage/prepared.ts';
import { ident } from '../../storage/sql.ts';
import { uuidv7 } from '../../tools/ids.ts';
import type { CompiledApp, CompiledField, CompiledModel } from '../compiled-app.ts';
import { authOf, bypassesRules, type Caller } from '../caller.ts';
import { bindFieldValue } from './bind.ts';
import { checkFieldWrites, checkRowFieldRules, fieldWriteRules } from './field-rules.ts';
import { problemFromDatabase } from './pg-errors.ts';
import { plainJson, readPlainRecord, type PlainRecord } from './plain-record.ts';
import { writeRelation } from './relations.ts';
import { refusal, ruleCondition } from './rules.ts';
import { validateWrite } from './values.ts';
import { checkFileKeys } from './file-keys.ts';
import { expressionDefaults } from './defaults.ts';
import { recordEvent } from './outbox.ts';
import { insertManyReadBack, insertReadBack, updateReadBack } from './merged-writes.ts';
import { selfContained } from './self-contained.ts';
import { forgetUser } from '../end-user-cache.ts';
import { currentEnv } from '../../secrets/current-env.ts';

function ownColumns(values: Map<CompiledField, unknown>): Array<[CompiledField, unknown]> {
  return [...values].filter(([field]) => field.column !== null);
}

function elsewhere(values: Map<CompiledField, unknown>): Array<[CompiledField, unknown]> {
  return [...values].filter(([field]) => field.column === null && field.relation);
}

/**
 * Whether a write may run with its read-back as one statement (runtime/writes/merged-writes.ts):
 * no relation stored elsewhere to write after it, and no subquery in the rule, the plain record
 * or the view (it would not see the write).
 */
function mergeable(app: CompiledApp, model: CompiledModel, values: Map<CompiledField, unknown>, condition: RawBuilder<unknown>, view?: RawBuilder<unknown>): boolean {
  return elsewhere(values).length === 0 && selfContained(condition, view, plainJson(app, model));
}

async function guarded<T>(model: CompiledModel, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw problemFromDatabase(error, model) ?? error;
  }
}

/** The field rules for the fields the request sets (defaults are the app's, not the caller's). */
async function checkFields(
  executor: Executor,
  app: CompiledApp,
  model: CompiledModel,
  caller: Caller,
  operation: 'create' | 'update',
  body: unknown,
  id: string,
): Promise<void> {
  if (bypassesRules(caller)) return;
  const names = Object.keys(body as Record<string, unknown>);
  await checkFieldWrites(executor, app, model, { auth: authOf(caller), operation, now: new Date(), env: currentEnv() }, names, id);
}

/**
 * After a write, ONE statement: whether the row passes the rule `condition`, its plain record, the
 * outbox event (recorded only when the rule holds: a refusal rolls the write back anyway) and,
 * when asked, `view`: an SQL expression on the row `t` (the caller's view of the record).
 */
async function afterWrite(
  executor: Executor,
  app: CompiledApp,
  model: CompiledModel,
  id: string,
  condition: RawBuilder<unknown>,
  event: { name: string; previous?: PlainRecord },
  view: RawBuilder<unknown> | undefined,
): Promise<{ ok: boolean; record: PlainRecord; view: unknown }> {
  const result = await sql<{ ok: boolean; record: PlainRecord | string; view: unknown }>`${sql.raw(PREPARED)}with w as (
      select coalesce((${condition}), false) as ok, ${plainJson(app, model)} as record, ${view ?? sql`null`} as view
      from ${ident(app.schema, model.table)} t where t.id = ${id}
    ), e as (
      insert into appbuilder.events (id, application_id, name, payload, previous)
      select ${uuidv7()}, ${app.applicationId}, ${event.name}, w.record::jsonb, cast(${event.previous ? JSON.stringify(event.previous) : null} as jsonb)
      from w where w.ok
    )
    select ok, record, view from w`.execute(executor);
  const row = result.rows[0];
  if (!row) throw new Error(`The written ${model.name} ${id} is gone`);
  const record = typeof row.record === 'string' ? (JSON.parse(row.record) as PlainRecord) : row.record;
  return { ok: row.ok === true, record, view: row.view };
}

/** A written record: its plain form (as events see it) and the `view` asked for, if any. */
export interface Written {
  record: PlainRecord;
  view: unknown;
}

/** Creates a record inside the caller's transaction; the rules are checked against the new row. */
export async function createRecord(executor: Executor, app: CompiledApp, model: CompiledModel, body: unknown, caller: Caller): Promise<PlainRecord> {
  return (await createRecordWithView(executor, app, model, body, caller)).record;
}

/** createRecord, also answering `view` (SQL on the new row `t`) read in the statement that checks the rule. */
export async function createRecordWithView(
  executor: Executor,
  app: CompiledApp,
  model: CompiledModel,
  body: unknown,
  caller: Caller,
  view?: RawBuilder<unknown>,
): Promise<Written> {
  const { values } = validateWrite(model, body, 'create', expressionDefaults(app, model, authOf(caller)));
  await checkFileKeys(executor, app, model, values);
  const condition = ruleCondition(app, model, caller, 'create');
  if (!condition) throw forbidden(`You may not create ${model.resource}.`);
  const id = uuidv7();
  const columns = ownColumns(values);
  if (mergeable(app, model, values, condition, view)) {
    const names = columns.map(([f]) => ident(f.column!));
    const bound = columns.map(([f, v]) => bindFieldValue(f, v));
    const merged = await guarded(model, () => insertReadBack(executor, app, model, id, names, bound, condition, view));
    if (!merged.ok) throw forbidden(`You may not create this ${model.name}.`);
    await checkFields(executor, app, model, caller, 'create', body, id);
    return { record: merged.record, view: merged.view };
  }
  await guarded(model, async () => {
    await sql`${sql.raw(PREPARED)}insert into ${ident(app.schema, model.table)} (${sql.join([sql`id`, ...columns.map(([f]) => ident(f.column!))])})
      values (${sql.join([sql`${id}`, ...columns.map(([f, v]) => bindFieldValue(f, v))])})`.execute(executor);
    for (const [field, value] of elsewhere(values)) await writeRelation(executor, app, field, id, value, false, caller);
  });
  const written = await afterWrite(executor, app, model, id, condition, { name: `${model.name}.created` }, view);
  if (!written.ok) throw forbidden(`You may not create this ${model.name}.`);
  await checkFields(executor, app, model, caller, 'create', body, id);
  return written;
}

/**
 * Creates several records of one model in ONE statement (a batch's run of creates), each under the
 * same checks as createRecord. Answers their ids in order, or null when the run cannot be merged
 * (a relation stored elsewhere, a rule with a subquery) or a row was refused by its rule: the caller
 * then rolls back what this did and creates them one by one, for each one's own answer or error.
 */
export async function createRecords(executor: Executor, app: CompiledApp, model: CompiledModel, bodies: unknown[], caller: Caller): Promise<string[] | null> {
  const condition = ruleCondition(app, model, caller, 'create');
  if (!condition) return null;
  const defaults = expressionDefaults(app, model, authOf(caller));
  const written = bodies.map((body) => ({ body, id: uuidv7(), values: validateWrite(model, body, 'create', defaults).values }));
  const fields = new Set<CompiledField>();
  for (const row of written) {
    if (!mergeable(app, model, row.values, condition)) return null;
    await checkFileKeys(executor, app, model, row.values);
    for (const [field] of ownColumns(row.values)) fields.add(field);
  }
  const columns = [...fields];
  const rows = written.map((row) => ({ id: row.id, values: columns.map((f) => (row.values.has(f) ? bindFieldValue(f, row.values.get(f)) : undefined)) }));
  const ok = await guarded(model, () => insertManyReadBack(executor, app, model, columns.map((f) => ident(f.column!)), rows, condition));
  if (!ok) return null;
  for (const row of written) await checkFields(executor, app, model, caller, 'create', row.body, row.id);
  return written.map((row) => row.id);
}

/**
 * Updates the fields given. A record the caller may not read answers 404, as a missing one; one
 * they may read but not update answers 403.
 */
export async function updateRecord(
  executor: Executor,
  app: CompiledApp,
  model: CompiledModel,
  id: string,
  body: unknown,
  caller: Caller,
): Promise<PlainRecord> {
  return (await updateRecordWithView(executor, app, model, id, body, caller)).record;
}

/** updateRecord, also answering `view` (SQL on the changed row `t`) read in the statement that checks the rule. */
export async function updateRecordWithView(
  executor: Executor,
  app: CompiledApp,
  model: CompiledModel,
  id: string,
  body: unknown,
  caller: Caller,
  view?: RawBuilder<unknown>,
): Promise<Written> {
  const { values } = validateWrite(model, body, 'update');
  await checkFileKeys(executor, app, model, values);
  if (model === app.userModel) forgetUser(app, id);
  const condition = ruleCondition(app, model, caller, 'update');
  if (!condition) throw await refusal(executor, app, model, id, caller, 'update');
  const table = ident(app.schema, model.table);
  const columns = ownColumns(values);
  const sets = [...columns.map(([f, v]) => sql`${ident(f.column!)} = ${bindFieldValue(f, v)}`), sql`updated_at = now()`];
  const fieldRules = bypassesRules(caller)
    ? { denied: [], onRow: [] }
    : fieldWriteRules(app, model, { auth: authOf(caller), operation: 'update', now: new Date(), env: currentEnv() }, Object.keys(body as Record<string, unknown>));
  if (fieldRules.onRow.length === 0 && mergeable(app, model, values, condition, view)) {
    const merged = await guarded(model, () => updateReadBack(executor, app, model, id, sets, condition, view));
    if (!merged) throw await refusal(executor, app, model, id, caller, 'update');
    await checkRowFieldRules(executor, app, model, fieldRules, id);
    if (!merged.ok) throw forbidden(`This change would take the ${model.name} out of your reach.`);
    return { record: merged.record, view: merged.view };
  }
  // Lock the row the caller may update and take its record as it was; when no field rule needs
  // the row before the change, change it in the same statement (a refusal after it rolls back).
  const lockOnly = fieldRules.onRow.length > 0;
  const locked = await guarded(
    model,
    () => sql<{ record: PlainRecord | string }>`${sql.raw(PREPARED)}with p as (select t.id, ${plainJson(app, model)} as record from ${table} t where t.id = ${id} and (${condition}) for update of t)
      ${lockOnly ? sql`` : sql`, u as (update ${table} t set ${sql.join(sets)} from p where t.id = p.id returning t.id)`}
      select record from p`.execute(executor),
  );
  const row = locked.rows[0];
  if (!row) throw await refusal(executor, app, model, id, caller, 'update');
  const previous = typeof row.record === 'string' ? (JSON.parse(row.record) as PlainRecord) : row.record;
  await checkRowFieldRules(executor, app, model, fieldRules, id);
  await guarded(model, async () => {
    if (lockOnly) await sql`update ${table} set ${sql.join(sets)} where id = ${id}`.execute(executor);
    for (const [field, value] of elsewhere(values)) await writeRelation(executor, app, field, id, value, true, caller);
  });
  // The changed row must still be the caller's to change: no moving records out of reach.
  const written = await afterWrite(executor, app, model, id, condition, { name: `${model.name}.updated`, previous }, view);
  if (!written.ok) throw forbidden(`This change would take the ${model.name} out of your reach.`);
  return written;
}

export async function deleteRecord(executor: Executor, app: CompiledApp, model: CompiledModel, id: string, caller: Caller): Promise<PlainRecord> {
  const condition = ruleCondition(app, model, caller, 'delete');
  if (model === app.userModel) forgetUser(app, id);
  const table = ident(app.schema, model.table);
  const found = condition ? await sql`select t.id from ${table} t where t.id = ${id} and (${condition}) for update`.execute(executor) : { rows: [] };
  if (found.rows.length === 0) throw await refusal(executor, app, model, id, caller, 'delete');
  const record = (await readPlainRecord(executor, app, model, id))!;
  await guarded(model, () => sql`delete from ${table} where id = ${id}`.execute(executor));
  await recordEvent(executor, app, `${model.name}.deleted`, record);
  return record;
}
