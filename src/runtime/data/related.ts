// The sub-collection of one record (DESIGN §6, bounded relations): `GET /{resource}/{id}/{field}`
// pages through every record a to-many relationship holds, as a list of the related model (same
// limit, offset, sort, filter and fields), under the related model's read rule, and only when the
// parent record itself is readable. Works for a foreign key in the target's table and for a join table.
import { sql, type RawBuilder } from 'kysely';
import type { Db, Executor } from '../../storage/db.ts';
import { PREPARED } from '../../storage/prepared.ts';
import { ident } from '../../storage/sql.ts';
import { isUuid } from '../../tools/ids.ts';
import type { CompiledApp, CompiledField, CompiledModel } from '../compiled-app.ts';
import { col, tableOf } from './columns.ts';
import { listRecordsJson, type ListOptions } from './read.ts';
import { RecordJson } from './record-json.ts';

/** The to-many relationships of a model that have a sub-collection route. */
export function subCollectionFields(model: CompiledModel): CompiledField[] {
  return model.fields.filter((f) => f.many && f.relation !== undefined && f.relation.storage.kind !== 'ownColumn');
}

function executorOf(db: Db | Executor): Executor {
  return 'kysely' in db && 'driver' in db ? db.kysely : db;
}

/** Whether the caller may read the record `id` of `model` (the rules, unless bypassed). */
async function readable(executor: Executor, app: CompiledApp, model: CompiledModel, id: string, options: ListOptions): Promise<boolean> {
  const ctx = options.ctx;
  const json = new RecordJson(app, { auth: ctx.auth, operation: 'read', now: ctx.now, env: ctx.env ?? {} }, ctx.bypassRules === true);
  const rule = json.readCondition(model, 't');
  if (rule.kind === 'none') return false;
  const where = rule.kind === 'where' ? sql`and (${rule.sql})` : sql``;
  const found = await sql`${sql.raw(PREPARED)}select 1 as one from ${tableOf(app, model)} t where t.id = cast(${id} as uuid) ${where}`.execute(executor);
  return found.rows.length > 0;
}

/**
 * The page of the records `field` of the record `id` relates to, as JSON text; undefined when the
 * parent does not exist or the caller may not read it (the route answers 404).
 */
export async function listRelatedJson(
  db: Db | Executor,
  app: CompiledApp,
  model: CompiledModel,
  id: string,
  field: CompiledField,
  options: ListOptions,
): Promise<string | undefined> {
  const storage = field.relation?.storage;
  if (!field.many || !storage || storage.kind === 'ownColumn') throw new Error(`${model.name}.${field.name} has no sub-collection`);
  if (typeof id !== 'string' || !isUuid(id)) return undefined;
  const executor = executorOf(db);
  if (!(await readable(executor, app, model, id, options))) return undefined;
  const target = app.modelsById.get(field.relation!.targetModelId)!;
  const parent = sql`cast(${id} as uuid)`;
  const within =
    storage.kind === 'targetColumn'
      ? (alias: string): RawBuilder<unknown> => sql`${col(alias, storage.column)} = ${parent}`
      : (alias: string): RawBuilder<unknown> =>
          sql`${col(alias, 'id')} in (select ${ident('j', storage.otherColumn)} from ${ident(app.schema, storage.table)} j where ${ident('j', storage.selfColumn)} = ${parent})`;
  return listRecordsJson(executor, app, target, { ...options, within });
}
