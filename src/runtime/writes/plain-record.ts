import type { Executor } from '../../storage/db.ts';
import { sql, type RawBuilder } from 'kysely';
import { PREPARED } from '../../storage/prepared.ts';
import { reusedSql } from '../../storage/raw-compiler.ts';
import { ident } from '../../storage/sql.ts';
import { jsonObject } from '../data/json-object.ts';
import type { CompiledApp, CompiledField, CompiledModel } from '../compiled-app.ts';

/** A record as events and `auth` see it: fields by name, relationships as ids, no rules applied. */
export type PlainRecord = Record<string, unknown> & { id: string };

/** The SQL expression giving one field's value for the row aliased `t`, relationships as ids. */
function plainValue(app: CompiledApp, model: CompiledModel, field: CompiledField): RawBuilder<unknown> | null {
  if (field.computed !== undefined) return null;
  const relation = field.relation;
  if (!relation || relation.storage.kind === 'ownColumn') return sql`t.${ident(field.column!)}`;
  const target = app.modelsById.get(relation.targetModelId)!;
  if (relation.storage.kind === 'targetColumn') {
    const fk = ident(relation.storage.column);
    const table = ident(app.schema, target.table);
    return field.many
      ? sql`coalesce((select json_agg(r.id order by r.id) from ${table} r where r.${fk} = t.id), '[]'::json)`
      : sql`(select r.id from ${table} r where r.${fk} = t.id limit 1)`;
  }
  const join = ident(app.schema, relation.storage.table);
  const self = ident(relation.storage.selfColumn);
  const other = ident(relation.storage.otherColumn);
  return field.many
    ? sql`coalesce((select json_agg(j.${other} order by j.${other}) from ${join} j where j.${self} = t.id), '[]'::json)`
    : sql`(select j.${other} from ${join} j where j.${self} = t.id limit 1)`;
}

/** `json_build_object('id', t.id, 'title', t.f_title, …)` (json-object.ts) for the row aliased `t`: every field, or only `fields`. */
function buildPlainJson(app: CompiledApp, model: CompiledModel, fields: readonly CompiledField[]): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [sql`'id', t.id`];
  for (const field of fields) {
    const value = plainValue(app, model, field);
    if (value) parts.push(sql`${field.name}::text, ${value}`);
  }
  return jsonObject(parts);
}

/** Built once per model and field list (a compiled definition does not change once loaded). */
const plainJsonCache = new WeakMap<CompiledModel, WeakMap<readonly CompiledField[], RawBuilder<unknown>>>();

export function plainJson(app: CompiledApp, model: CompiledModel, fields: readonly CompiledField[] = model.fields): RawBuilder<unknown> {
  let byFields = plainJsonCache.get(model);
  if (!byFields) plainJsonCache.set(model, (byFields = new WeakMap()));
  let json = byFields.get(fields);
  if (!json) byFields.set(fields, (json = reusedSql(buildPlainJson(app, model, fields))));
  return json;
}

/** The records of `ids`, with every field or (the signed-in end user: runtime/auth-reads.ts) only `fields`. */
export async function readPlainRecords(
  executor: Executor,
  app: CompiledApp,
  model: CompiledModel,
  ids: string[],
  fields?: readonly CompiledField[],
): Promise<PlainRecord[]> {
  if (ids.length === 0) return [];
  // Prepared (storage/prepared.ts): it also loads the signed-in end user on every request.
  const result = await sql<{ record: PlainRecord }>`${sql.raw(PREPARED)}select ${plainJson(app, model, fields)} as record
    from ${ident(app.schema, model.table)} t
    where t.id = any(${ids}::uuid[])`.execute(executor);
  return result.rows.map((row) => (typeof row.record === 'string' ? JSON.parse(row.record) : row.record));
}

export async function readPlainRecord(
  executor: Executor,
  app: CompiledApp,
  model: CompiledModel,
  id: string,
  fields?: readonly CompiledField[],
): Promise<PlainRecord | undefined> {
  return (await readPlainRecords(executor, app, model, [id], fields))[0];
}
