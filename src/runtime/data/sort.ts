// The `sort` query parameter: `-deadline,title` over stored single-valued primitive fields and
// `id`, `createdAt`, `updatedAt`; `id` always closes the order so pages are stable.
import { sql, type RawBuilder } from 'kysely';
import { badRequest } from '../../errors.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { col, fieldSql } from './columns.ts';
import type { FieldAccess } from './rule-sql.ts';

export interface SortKey {
  name: string;
  descending: boolean;
}

const MAX_SORT_KEYS = 8;

function invalid(message: string) {
  return badRequest(`The sort is not valid: ${message}`, [{ path: '/sort', message }]);
}

/** Parses and checks `sort`; an unknown, unsortable, hidden or repeated field is a 400 naming `/sort`. */
export function parseSort(app: CompiledApp, model: CompiledModel, sort: string | undefined, visibility: Map<string, FieldAccess>): SortKey[] {
  if (sort === undefined || sort.trim() === '') return [];
  const keys: SortKey[] = [];
  for (const raw of sort.split(',')) {
    const part = raw.trim();
    const descending = part.startsWith('-');
    const name = part.replace(/^[-+]/, '');
    if (name === '') throw invalid('an empty sort key');
    const f = fieldSql(app, model, name, 't');
    if (f.kind !== 'scalar' || !f.sortable) throw invalid(`'${name}' is not a sortable field of ${model.name}`);
    const access = visibility.get(name);
    if (access && access.kind !== 'visible') throw invalid(`'${name}' is not a sortable field of ${model.name}`);
    if (keys.some((k) => k.name === name)) throw invalid(`'${name}' appears twice`);
    keys.push({ name, descending });
    if (keys.length > MAX_SORT_KEYS) throw invalid(`at most ${MAX_SORT_KEYS} sort keys`);
  }
  return keys;
}

/** `"a"."f_deadline" desc, "a"."id"` for the row alias `alias`. */
export function orderBy(app: CompiledApp, model: CompiledModel, keys: SortKey[], alias: string): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  for (const key of keys) {
    const f = fieldSql(app, model, key.name, alias);
    if (f.kind !== 'scalar') continue;
    parts.push(key.descending ? sql`${f.sql} desc` : f.sql);
    if (key.name === 'id') return sql.join(parts);
  }
  parts.push(col(alias, 'id'));
  return sql.join(parts);
}
