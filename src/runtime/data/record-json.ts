// Records as JSON built inside PostgreSQL (DESIGN §3: the fast path). A record is
// `{id, <field name>: value...}`. At the top level relationship fields are expanded to the related
// records (one correlated subquery per relationship, never one query per row); inside an
// embedded record relationships are ids (to-one: id or null; to-many: array, never null). An
// embedded record the caller may not read stays an id. Field rules hide fields.
// Bounded relations (DESIGN §6): a to-many id array and a to-many expansion hold at most
// `relationLimit` entries (APPBUILDER_RELATION_LIMIT), the first by id; the id arrays inside an
// embedded record are placeholders and hold at most `embeddedIdLimit` (APPBUILDER_EMBEDDED_ID_LIMIT,
// default 10: at 100, twenty embedded users of a list carry 80 KB of ids nobody reads). The whole
// set is paged at the sub-collection route. A selection (`fields=`, fields-param.ts) narrows the members and the SQL.
import { sql, type RawBuilder } from 'kysely';
import { ident } from '../../storage/sql.ts';
import type { CompiledApp, CompiledField, CompiledModel } from '../compiled-app.ts';
import { col, sqlTypeOf, tableOf } from './columns.ts';
import { recordFieldReferences } from '../../expressions/index.ts';
import { computedSql } from './computed-sql.ts';
import { compiledComputed } from './expressions.ts';
import { fileUrlSql, isFileType } from './file-urls.ts';
import { jsonObject } from './json-object.ts';
import type { Selection } from './fields-param.ts';
import { accessCondition, fieldVisibility, type Condition, type FieldAccess, type RuleContext } from './rule-sql.ts';
import { hideWriteOnly } from './write-only.ts';

const ISO_UTC = sql.raw(`'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`);
const EMPTY = sql.raw(`'[]'::json`);

/** APPBUILDER_RELATION_LIMIT's default. */
export const DEFAULT_RELATION_LIMIT = 100;
/** APPBUILDER_EMBEDDED_ID_LIMIT's default. */
export const DEFAULT_EMBEDDED_ID_LIMIT = 10;

/** How large a statement's related sets may be, and where file fields point. */
export interface RecordJsonOptions {
  /** At most this many entries in a to-many id array or expansion (APPBUILDER_RELATION_LIMIT). */
  relationLimit?: number;
  /** At most this many ids in a to-many id array inside an embedded record (APPBUILDER_EMBEDDED_ID_LIMIT). */
  embeddedIdLimit?: number;
  /** The version's files route (absolute, ending in `/`): stored file keys read as URLs under it (file-urls.ts). */
  filesUrl?: string;
}

/** Builds the JSON of one statement; aliases are numbered per statement so its text is stable. */
export class RecordJson {
  /** Computed fields left to JS (computed-js.ts), per model id, for the models this statement outputs. */
  readonly jsComputed = new Map<string, CompiledField[]>();
  /**
   * Per model id, members a selection left out but a computed field left to JS reads: answered
   * for the computation, then dropped (computed-js.ts, `dropMembers`).
   */
  readonly extras = new Map<string, Set<string>>();
  private aliases = 0;
  private readonly visibilities = new Map<string, Map<string, FieldAccess>>();
  readonly relationLimit: number;
  readonly embeddedIdLimit: number;
  readonly filesUrl?: string;

  constructor(
    readonly app: CompiledApp,
    readonly ctx: RuleContext,
    readonly bypassRules: boolean,
    options: RecordJsonOptions = {},
  ) {
    this.relationLimit = options.relationLimit ?? DEFAULT_RELATION_LIMIT;
    this.embeddedIdLimit = Math.min(this.relationLimit, options.embeddedIdLimit ?? DEFAULT_EMBEDDED_ID_LIMIT);
    if (options.filesUrl !== undefined) this.filesUrl = options.filesUrl;
  }

  visibility(model: CompiledModel): Map<string, FieldAccess> {
    let visibility = this.visibilities.get(model.id);
    if (!visibility) {
      visibility = hideWriteOnly(model, this.bypassRules ? new Map() : fieldVisibility(this.app, model, this.ctx));
      this.visibilities.set(model.id, visibility);
    }
    return visibility;
  }

  readCondition(model: CompiledModel, alias: string): Condition {
    return this.bypassRules ? { kind: 'all' } : accessCondition(this.app, model, this.ctx, alias);
  }

  /**
   * The record on row `alias` as `json`; `expand` resolves relationships to records (the top
   * level). With a selection, only its members (and `id`): a relationship it names alone stays
   * ids, one it expands is expanded with the members it names. `embedded`: the record sits inside
   * another (its id arrays are placeholders, bounded by `embeddedIdLimit`).
   */
  record(model: CompiledModel, alias: string, expand: boolean, selection?: Selection | null, embedded = false): RawBuilder<unknown> {
    const always: RawBuilder<unknown>[] = [sql`'id', ${col(alias, 'id')}`];
    const conditional: RawBuilder<unknown>[] = [];
    const visibility = this.visibility(model);
    const extra = selection ? this.readForJs(model, selection, alias) : undefined;
    for (const field of model.fields) {
      const access = visibility.get(field.name) ?? { kind: 'visible' };
      if (access.kind === 'hidden') continue;
      const pick = selection ? (selection.get(field.name) ?? (extra?.has(field.name) ? { kind: 'plain' as const } : undefined)) : undefined;
      if (selection && !pick) continue;
      const value =
        pick && field.relation
          ? pick.kind === 'expand'
            ? this.expanded(field, alias, pick.fields)
            : this.ids(field, alias, embedded)
          : this.value(model, field, alias, expand, embedded);
      const pair = sql`${field.name}::text, ${value}`;
      if (access.kind === 'visible') always.push(pair);
      else conditional.push(sql`case when ${access.condition(alias)} then jsonb_build_object(${pair}) else '{}'::jsonb end`);
    }
    const base = jsonObject(always);
    if (conditional.length === 0) return base;
    return sql`(${sql.join([sql`${base}::jsonb`, ...conditional], sql.raw(' || '))})::json`;
  }

  /** The members that selected computed fields left to JS read and the selection leaves out (kept in `extras`). */
  private readForJs(model: CompiledModel, selection: Selection, alias: string): Set<string> | undefined {
    let extra: Set<string> | undefined;
    for (const [name] of selection) {
      const field = model.fieldsByName.get(name);
      if (field?.computed === undefined) continue;
      if (computedSql(this.app, model, field, alias, { now: this.ctx.now, env: this.ctx.env ?? {} })) continue;
      const compiled = compiledComputed(this.app, model, field);
      if (!compiled) continue;
      for (const read of recordFieldReferences(compiled.ast)) {
        if (selection.has(read) || !model.fieldsByName.has(read)) continue;
        (extra ??= new Set()).add(read);
      }
    }
    if (extra) {
      const kept = this.extras.get(model.id) ?? new Set<string>();
      for (const name of extra) kept.add(name);
      this.extras.set(model.id, kept);
    }
    return extra;
  }

  private value(model: CompiledModel, field: CompiledField, alias: string, expand: boolean, embedded: boolean): RawBuilder<unknown> {
    if (field.computed !== undefined) {
      const translated = computedSql(this.app, model, field, alias, { now: this.ctx.now, env: this.ctx.env ?? {} });
      if (translated) return translated.type === 'timestamptz' ? sql`to_char(${translated.sql} at time zone 'UTC', ${ISO_UTC})` : translated.sql;
      const list = this.jsComputed.get(model.id) ?? [];
      if (!list.includes(field)) list.push(field);
      this.jsComputed.set(model.id, list);
      return sql`null`; // a placeholder, filled after the fetch
    }
    if (field.relation) return expand ? this.expanded(field, alias) : this.ids(field, alias, embedded);
    const column = col(alias, field.column!);
    if (this.filesUrl !== undefined && isFileType(field.to)) return fileUrlSql(column, field.many, this.filesUrl);
    const type = sqlTypeOf(field.to);
    if (!field.many) return type === 'timestamptz' ? sql`to_char(${column} at time zone 'UTC', ${ISO_UTC})` : column;
    if (type === 'timestamptz') {
      return sql`coalesce((select json_agg(to_char(v at time zone 'UTC', ${ISO_UTC}) order by n) from unnest(${column}) with ordinality as u(v, n)), ${EMPTY})`;
    }
    return sql`coalesce(to_json(${column}), ${EMPTY})`;
  }

  /**
   * A relationship as ids: to-one an id or null, to-many an array of the ids of the related records
   * the caller may read (the others are not listed: their ids and number are not the caller's).
   */
  private ids(field: CompiledField, alias: string, embedded = false): RawBuilder<unknown> {
    const relation = field.relation!;
    const storage = relation.storage;
    if (storage.kind === 'ownColumn') return col(alias, storage.column);
    const target = this.app.modelsById.get(relation.targetModelId)!;
    // The alias is taken only when used, so the statement stays as it was when every one is readable.
    const r = `e${this.aliases + 1}`;
    const rule: Condition = field.many ? this.readCondition(target, r) : { kind: 'all' };
    if (rule.kind === 'none') return EMPTY;
    if (rule.kind === 'where') this.aliases++;
    let from: RawBuilder<unknown>;
    let id: RawBuilder<unknown>;
    if (storage.kind === 'targetColumn') {
      from = sql`${tableOf(this.app, target)} x where ${col('x', storage.column)} = ${col(alias, 'id')}`;
      id = col('x', 'id');
    } else {
      from = sql`${ident(this.app.schema, storage.table)} x where ${col('x', storage.selfColumn)} = ${col(alias, 'id')}`;
      id = col('x', storage.otherColumn);
    }
    if (!field.many) return sql`(select ${id} from ${from} order by ${id} limit 1)`;
    const limit = embedded ? this.embeddedIdLimit : this.relationLimit;
    if (rule.kind === 'all') return sql`coalesce((select json_agg(b.id order by b.id) from (select ${id} as id from ${from} order by ${id} limit ${limit}) b), ${EMPTY})`;
    // Only the readable ones: the target's rule on its row (aliased apart: rules use `x` themselves).
    const table = sql`${tableOf(this.app, target)} ${ident(r)}`;
    const readable =
      storage.kind === 'targetColumn'
        ? sql`${table} where ${col(r, storage.column)} = ${col(alias, 'id')} and (${rule.sql})`
        : sql`${ident(this.app.schema, storage.table)} x join ${table} on ${col(r, 'id')} = ${col('x', storage.otherColumn)}
            where ${col('x', storage.selfColumn)} = ${col(alias, 'id')} and (${rule.sql})`;
    return sql`coalesce((select json_agg(b.id order by b.id) from (select ${col(r, 'id')} as id from ${readable} order by ${col(r, 'id')} limit ${limit}) b), ${EMPTY})`;
  }

  /**
   * A relationship as the related records. To-one: one the caller may not read stays an id (the
   * record holds it). To-many: only the records the caller may read.
   */
  private expanded(field: CompiledField, alias: string, selection?: Selection | null): RawBuilder<unknown> {
    const relation = field.relation!;
    const storage = relation.storage;
    const target = this.app.modelsById.get(relation.targetModelId)!;
    const e = `e${++this.aliases}`;
    const rule = this.readCondition(target, e);
    if (rule.kind === 'none') return field.many ? EMPTY : this.ids(field, alias);
    const record = this.record(target, e, false, selection, true);
    const item = rule.kind === 'all' || field.many ? record : sql`case when ${rule.sql} then ${record} else to_json(${col(e, 'id')}) end`;
    const table = sql`${tableOf(this.app, target)} ${ident(e)}`;
    let from: RawBuilder<unknown>;
    if (storage.kind === 'ownColumn') from = sql`${table} where ${col(e, 'id')} = ${col(alias, storage.column)}`;
    else if (storage.kind === 'targetColumn') from = sql`${table} where ${col(e, storage.column)} = ${col(alias, 'id')}`;
    else {
      const join = ident(this.app.schema, storage.table);
      from = sql`${join} x join ${table} on ${col(e, 'id')} = ${col('x', storage.otherColumn)} where ${col('x', storage.selfColumn)} = ${col(alias, 'id')}`;
    }
    if (storage.kind === 'ownColumn') return sql`(select ${item} from ${from})`;
    if (!field.many) return sql`(select ${item} from ${from} order by ${col(e, 'id')} limit 1)`;
    const readable = rule.kind === 'all' ? from : sql`${from} and (${rule.sql})`;
    // The first `relationLimit` rows by id, then their JSON (the row keeps its alias: `record` reads it).
    const rows = sql`(select ${ident(e)}.* from ${readable} order by ${col(e, 'id')} limit ${this.relationLimit}) ${ident(e)}`;
    return sql`coalesce((select json_agg(${item} order by ${col(e, 'id')}) from ${rows}), ${EMPTY})`;
  }
}
