// Writing a relationship stored outside the model's own table: the partner's foreign-key column
// (`targetColumn`) or a join table. Such a write changes the target rows too (a to-do moves to
// another user), so every target row that gains or loses this record must pass the target model's
// update rule for the caller, checked in SQL before and after the change, exactly like a direct
// update of that row; the changed rows get their own `{Model}.updated` events.
import type { Executor } from '../../storage/db.ts';
import { sql } from 'kysely';
import { Problem, unprocessable, type ProblemDetail } from '../../errors.ts';
import { ident } from '../../storage/sql.ts';
import type { CompiledApp, CompiledField, CompiledModel } from '../compiled-app.ts';
import { bypassesRules, type Caller } from '../caller.ts';
import { recordEvent } from './outbox.ts';
import { readPlainRecords } from './plain-record.ts';
import { ruleTruth } from './rules.ts';

type Stored = { kind: 'targetColumn'; column: string } | { kind: 'joinTable'; table: string; selfColumn: string; otherColumn: string };

/** The ids currently related to record `id` through `storage`. */
async function relatedIds(executor: Executor, app: CompiledApp, target: CompiledModel, storage: Stored, id: string): Promise<string[]> {
  const result =
    storage.kind === 'targetColumn'
      ? await sql<{ id: string }>`select r.id from ${ident(app.schema, target.table)} r where r.${ident(storage.column)} = ${id}`.execute(executor)
      : await sql<{ id: string }>`select j.${ident(storage.otherColumn)} as id from ${ident(app.schema, storage.table)} j
          where j.${ident(storage.selfColumn)} = ${id}`.execute(executor);
  return result.rows.map((row) => row.id);
}

/**
 * Locks the target rows that change and checks them: an added id that does not exist or that the
 * caller may not read is refused as a missing one (422 naming the item); so is detaching a target
 * that needs this record; a target the caller may read but not update, added or removed, is 403.
 */
async function checkTargets(
  executor: Executor,
  app: CompiledApp,
  target: CompiledModel,
  field: CompiledField,
  storage: Stored,
  ids: string[],
  added: string[],
  removed: string[],
  caller: Caller,
): Promise<void> {
  const rows = await sql<{ id: string; visible: boolean; updatable: boolean }>`
    select t.id, ${ruleTruth(app, target, caller, 'read')} as visible, ${ruleTruth(app, target, caller, 'update')} as updatable
    from ${ident(app.schema, target.table)} t where t.id = any(${[...added, ...removed]}::uuid[]) order by t.id for update`.execute(executor);
  const byId = new Map(rows.rows.map((row) => [row.id, row]));
  const pathOf = (targetId: string) => (field.many ? `/${field.name}/${ids.indexOf(targetId)}` : `/${field.name}`);
  const missing: ProblemDetail[] = [];
  const locked: ProblemDetail[] = [];
  for (const targetId of added) {
    const row = byId.get(targetId);
    if (!row || !row.visible) missing.push({ path: pathOf(targetId), message: 'refers to a record that does not exist' });
    else if (!row.updatable) locked.push({ path: pathOf(targetId), message: `is a ${target.name} you may not change` });
  }
  if (missing.length > 0) throw unprocessable('A related record does not exist.', missing);
  checkDetach(target, field, storage, removed);
  if (removed.some((targetId) => byId.get(targetId)?.updatable !== true)) {
    locked.push({ path: `/${field.name}`, message: `would detach a ${target.name} you may not change` });
  }
  if (locked.length > 0) throw new Problem(403, `You may not change the ${target.name} records this would move.`, locked);
}

/** A target whose partner field is required cannot be detached: it would be left without it. */
function checkDetach(target: CompiledModel, field: CompiledField, storage: Stored, removed: string[]): void {
  if (removed.length === 0 || storage.kind !== 'targetColumn') return;
  const partner = target.fields.find((f) => f.column === storage.column);
  if (partner?.required) {
    throw unprocessable(`Each ${target.name} needs its ${partner.name}.`, [
      { path: `/${field.name}`, message: `would leave a ${target.name} without its required ${partner.name}` },
    ]);
  }
}

/**
 * Sets the relationship `field` of record `id` to `value` (an id, ids, or null). `replacing`: the
 * value replaces the current set (update); otherwise the record is new and has none.
 */
export async function writeRelation(
  executor: Executor,
  app: CompiledApp,
  field: CompiledField,
  id: string,
  value: unknown,
  replacing: boolean,
  caller: Caller,
): Promise<void> {
  const relation = field.relation!;
  const storage = relation.storage;
  if (storage.kind === 'ownColumn') return;
  const target = app.modelsById.get(relation.targetModelId)!;
  const ids = value === null ? [] : Array.isArray(value) ? [...new Set(value as string[])] : [value as string];
  const current = replacing ? await relatedIds(executor, app, target, storage, id) : [];
  const added = ids.filter((x) => !current.includes(x));
  const removed = current.filter((x) => !ids.includes(x));
  if (added.length === 0 && removed.length === 0) return;
  await checkTargets(executor, app, target, field, storage, ids, added, removed, caller);
  const changed = [...added, ...removed];
  const previous = await readPlainRecords(executor, app, target, changed);

  if (storage.kind === 'targetColumn') {
    const table = ident(app.schema, target.table);
    const fk = ident(storage.column);
    if (removed.length > 0) await sql`update ${table} set ${fk} = null, updated_at = now() where id = any(${removed}::uuid[])`.execute(executor);
    if (added.length > 0) await sql`update ${table} set ${fk} = ${id}, updated_at = now() where id = any(${added}::uuid[])`.execute(executor);
  } else {
    const join = ident(app.schema, storage.table);
    const self = ident(storage.selfColumn);
    const other = ident(storage.otherColumn);
    if (removed.length > 0) await sql`delete from ${join} where ${self} = ${id} and ${other} = any(${removed}::uuid[])`.execute(executor);
    if (added.length > 0) await sql`insert into ${join} (${self}, ${other}) select ${id}, unnest(${added}::uuid[]) on conflict do nothing`.execute(executor);
  }

  // As for a direct update: the changed rows must still be the caller's to change afterwards.
  if (!bypassesRules(caller)) {
    const escaped = await sql`select 1 from ${ident(app.schema, target.table)} t
      where t.id = any(${changed}::uuid[]) and not ${ruleTruth(app, target, caller, 'update')} limit 1`.execute(executor);
    if (escaped.rows.length > 0) {
      throw new Problem(403, `This change would take a ${target.name} out of your reach.`, [
        { path: `/${field.name}`, message: `would take a ${target.name} out of your reach` },
      ]);
    }
  }
  const after = new Map((await readPlainRecords(executor, app, target, changed)).map((r) => [r.id, r]));
  for (const before of previous) {
    const now = after.get(before.id);
    if (now) await recordEvent(executor, app, `${target.name}.updated`, now, before);
  }
}
