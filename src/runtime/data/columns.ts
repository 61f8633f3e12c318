// Where a field's value lives in SQL, for conditions, sorting and JSON output.
import { sql, type RawBuilder } from 'kysely';
import { ident } from '../../storage/sql.ts';
import type { CompiledApp, CompiledField, CompiledModel } from '../compiled-app.ts';

/** SQL types of stored values, used to cast bound parameters so the statement text and plan stay stable. */
export type SqlType = 'text' | 'float8' | 'boolean' | 'timestamptz' | 'date' | 'time' | 'uuid' | 'jsonb';

const PRIMITIVE_SQL: Readonly<Record<string, SqlType>> = {
  p_TEXT: 'text',
  p_LINK: 'text',
  p_IMAGE: 'text',
  p_VIDEO: 'text',
  p_FILE: 'text',
  p_PHONE_NUMBER: 'text',
  p_NUMBER: 'float8',
  p_STAR_RATING: 'float8',
  p_BOOLEAN: 'boolean',
  p_DATE: 'date',
  p_DATE_TIME: 'timestamptz',
  p_TIME: 'time',
  p_ADDRESS: 'jsonb',
  p_CURRENCY_AMOUNT: 'jsonb',
};

export function sqlTypeOf(to: string): SqlType {
  return PRIMITIVE_SQL[to] ?? 'uuid';
}

/** A condition on a related row aliased `alias`. */
export type Within = (alias: string) => RawBuilder<unknown>;

/** The alias of a related row a `Within` condition is about (not `x`: conditions use `x` in their own subqueries). */
export const RELATED_ALIAS = 'rel';

/** A field as SQL, relative to a row alias. */
export type FieldSql =
  /** One value: a column, or a subquery giving one id. */
  | { kind: 'scalar'; sql: RawBuilder<unknown>; type: SqlType; notNull: boolean; sortable: boolean }
  /** An array column of primitives. */
  | { kind: 'array'; sql: RawBuilder<unknown>; type: SqlType }
  /**
   * A to-many relationship stored in the target's table or a join table. `within`, when given,
   * keeps only the related records where it holds (a condition on the target row aliased `alias`):
   * a list filter counts and tests only what its caller may read.
   */
  | { kind: 'relation'; target: CompiledModel; exists: (id: RawBuilder<unknown>, within?: Within) => RawBuilder<unknown>; count: (within?: Within) => RawBuilder<unknown> }
  /** A computed field: its expression, translated by the caller. */
  | { kind: 'computed'; field: CompiledField }
  | { kind: 'unknown' };

export const SYSTEM_COLUMNS: Readonly<Record<string, { column: string; type: SqlType }>> = {
  id: { column: 'id', type: 'uuid' },
  createdAt: { column: 'created_at', type: 'timestamptz' },
  updatedAt: { column: 'updated_at', type: 'timestamptz' },
};

export function tableOf(app: CompiledApp, model: CompiledModel): RawBuilder<unknown> {
  return ident(app.schema, model.table);
}

/** `"alias"."column"`. */
export function col(alias: string, column: string): RawBuilder<unknown> {
  return ident(alias, column);
}

/** How a field (or `id`, `createdAt`, `updatedAt`) of the row `alias` reads in SQL. */
export function fieldSql(app: CompiledApp, model: CompiledModel, name: string, alias: string): FieldSql {
  const system = SYSTEM_COLUMNS[name];
  if (system) return { kind: 'scalar', sql: col(alias, system.column), type: system.type, notNull: true, sortable: true };
  const field = model.fieldsByName.get(name);
  if (!field) return { kind: 'unknown' };
  if (field.computed !== undefined) return { kind: 'computed', field };
  const relation = field.relation;
  if (!relation) {
    const type = sqlTypeOf(field.to);
    if (field.many) return { kind: 'array', sql: col(alias, field.column!), type };
    return { kind: 'scalar', sql: col(alias, field.column!), type, notNull: field.required, sortable: type !== 'jsonb' };
  }
  if (relation.storage.kind === 'ownColumn') {
    return { kind: 'scalar', sql: col(alias, relation.storage.column), type: 'uuid', notNull: field.required, sortable: false };
  }
  const target = app.modelsById.get(relation.targetModelId);
  if (!target) return { kind: 'unknown' };
  const self = col(alias, 'id');
  if (relation.storage.kind === 'targetColumn') {
    const table = tableOf(app, target);
    const column = relation.storage.column;
    const fk = ident('x', column);
    if (!field.many) {
      return { kind: 'scalar', sql: sql`(select x.id from ${table} x where ${fk} = ${self} limit 1)`, type: 'uuid', notNull: false, sortable: false };
    }
    const related = (within: Within) => sql`${table} ${ident(RELATED_ALIAS)} where ${ident(RELATED_ALIAS, column)} = ${self} and (${within(RELATED_ALIAS)})`;
    return {
      kind: 'relation',
      target,
      exists: (id, within) =>
        within
          ? sql`exists (select 1 from ${related(within)} and ${col(RELATED_ALIAS, 'id')} = ${id})`
          : sql`exists (select 1 from ${table} x where ${fk} = ${self} and x.id = ${id})`,
      count: (within) => (within ? sql`(select count(*) from ${related(within)})` : sql`(select count(*) from ${table} x where ${fk} = ${self})`),
    };
  }
  const join = ident(app.schema, relation.storage.table);
  const mine = ident('x', relation.storage.selfColumn);
  const other = ident('x', relation.storage.otherColumn);
  if (!field.many) {
    return { kind: 'scalar', sql: sql`(select ${other} from ${join} x where ${mine} = ${self} limit 1)`, type: 'uuid', notNull: false, sortable: false };
  }
  const related = (within: Within) =>
    sql`${join} x join ${tableOf(app, target)} ${ident(RELATED_ALIAS)} on ${col(RELATED_ALIAS, 'id')} = ${other} where ${mine} = ${self} and (${within(RELATED_ALIAS)})`;
  return {
    kind: 'relation',
    target,
    exists: (id, within) =>
      within
        ? sql`exists (select 1 from ${related(within)} and ${other} = ${id})`
        : sql`exists (select 1 from ${join} x where ${mine} = ${self} and ${other} = ${id})`,
    count: (within) => (within ? sql`(select count(*) from ${related(within)})` : sql`(select count(*) from ${join} x where ${mine} = ${self})`),
  };
}

/** A bound parameter cast to `type`: `cast($1 as timestamptz)`. Dates are bound as ISO strings on both drivers. */
export function param(value: unknown, type: SqlType | `${SqlType}[]`): RawBuilder<unknown> {
  const bound = value instanceof Date ? value.toISOString() : value;
  return sql`cast(${bound} as ${sql.raw(type)})`;
}
