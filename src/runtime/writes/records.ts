import type { Executor } from '../../storage/db.ts';
import { sql } from 'kysely';
import { forbidden } from '../../errors.ts';
import { ident } from '../../storage/sql.ts';
import { uuidv7 } from '../../tools/ids.ts';
import type { CompiledApp, CompiledField, CompiledModel } from '../compiled-app.ts';
import { authOf, bypassesRules, type Caller } from '../caller.ts';
import { bindFieldValue } from './bind.ts';
import { checkFieldWrites } from './field-rules.ts';
import { problemFromDatabase } from './pg-errors.ts';
import { readPlainRecord, type PlainRecord } from './plain-record.ts';
import { writeRelation } from './relations.ts';
import { refusal, ruleCondition, ruleHolds } from './rules.ts';
import { validateWrite } from './values.ts';
import { recordEvent } from './outbox.ts';

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
  await checkFieldWrites(executor, app, model, { auth: authOf(caller), operation, now: new Date() }, names, id);
}

/** Creates a record inside the caller's transaction; the rules are checked against the new row. */
export async function createRecord(executor: Executor, app: CompiledApp, model: CompiledModel, body: unknown, caller: Caller): Promise<PlainRecord> {
  const { values } = validateWrite(model, body, 'create');
  const condition = ruleCondition(app, model, caller, 'create');
  if (!condition) throw forbidden(`You may not create ${model.resource}.`);
  const id = uuidv7();
  const columns = ownColumns(values);
  await guarded(model, async () => {
    await sql`insert into ${ident(app.schema, model.table)} (${sql.join([sql`id`, ...columns.map(([f]) => ident(f.column!))])})
      values (${sql.join([sql`${id}`, ...columns.map(([f, v]) => bindFieldValue(f, v))])})`.execute(executor);
    for (const [field, value] of elsewhere(values)) await writeRelation(executor, app, field, id, value, false, caller);
  });
  if (!(await ruleHolds(executor, app, model, id, condition))) throw forbidden(`You may not create this ${model.name}.`);
  await checkFields(executor, app, model, caller, 'create', body, id);
  const record = (await readPlainRecord(executor, app, model, id))!;
  await recordEvent(executor, app, `${model.name}.created`, record);
  return record;
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
  const { values } = validateWrite(model, body, 'update');
  const condition = ruleCondition(app, model, caller, 'update');
  const table = ident(app.schema, model.table);
  const locked = condition
    ? await sql`select t.id from ${table} t where t.id = ${id} and (${condition}) for update`.execute(executor)
    : { rows: [] };
  if (locked.rows.length === 0) throw await refusal(executor, app, model, id, caller, 'update');
  await checkFields(executor, app, model, caller, 'update', body, id);
  const previous = (await readPlainRecord(executor, app, model, id))!;
  const columns = ownColumns(values);
  await guarded(model, async () => {
    const sets = [...columns.map(([f, v]) => sql`${ident(f.column!)} = ${bindFieldValue(f, v)}`), sql`updated_at = now()`];
    await sql`update ${table} set ${sql.join(sets)} where id = ${id}`.execute(executor);
    for (const [field, value] of elsewhere(values)) await writeRelation(executor, app, field, id, value, true, caller);
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
  if (found.rows.length === 0) throw await refusal(executor, app, model, id, caller, 'delete');
  const record = (await readPlainRecord(executor, app, model, id))!;
  await guarded(model, () => sql`delete from ${table} where id = ${id}`.execute(executor));
  await recordEvent(executor, app, `${model.name}.deleted`, record);
  return record;
}
