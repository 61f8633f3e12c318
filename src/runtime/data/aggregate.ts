// Aggregates over a model (`GET /{resource}/aggregate`): `groupBy` fields, `metrics` (`count`,
// `count(f)`, `countDistinct(f)`, `sum(f)`, `avg(f)`, `min(f)`, `max(f)`), with the list's
// `filter`, `search`, `sort`, `limit` and `offset`. One statement: the rows are the ones a list
// would show the caller (the same read rule, filter and search conditions), grouped in
// PostgreSQL, the page of groups and their number built as JSON there. Only fields the caller
// may read on every row may be grouped or measured; an unknown or hidden field is one 400 naming
// it, in the same words for both (as `fields=` does), so the answer does not tell them apart.
import { sql, type RawBuilder } from 'kysely';
import { badRequest } from '../../errors.ts';
import type { Db, Executor } from '../../storage/db.ts';
import { PREPARED } from '../../storage/prepared.ts';
import { ident } from '../../storage/sql.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { authForFilter } from '../auth-reads.ts';
import { fieldSql, tableOf, type SqlType } from './columns.ts';
import { isFileType } from './file-urls.ts';
import { MAX_LIMIT, DEFAULT_LIMIT, type ReadContext } from './read.ts';
import { RecordJson } from './record-json.ts';
import { filterCondition, type Condition } from './rule-sql.ts';
import { searchOf } from './search.ts';

export interface AggregateOptions {
  ctx: ReadContext;
  /** `status,user`: the fields whose values make a group; none: one group of every row. */
  groupBy?: string;
  /** `count,sum(total)`; `count` when left out. */
  metrics?: string;
  filter?: string;
  search?: string;
  /** `-count,status`: metrics and grouped fields; by the grouped fields when left out. */
  sort?: string;
  limit?: number;
  offset?: number;
}

const FUNCTIONS = ['count', 'countDistinct', 'sum', 'avg', 'min', 'max'] as const;
type Fn = (typeof FUNCTIONS)[number];

/** At most this many grouped fields and metrics: the statement text stays bounded. */
const MAX_GROUPS = 8;
const MAX_METRICS = 20;

const NUMERIC: ReadonlySet<SqlType> = new Set(['float8']);
const ORDERED: ReadonlySet<SqlType> = new Set(['text', 'float8', 'date', 'timestamptz', 'time']);
const ISO_UTC = sql.raw(`'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`);

interface Column {
  /** The name in the answer: the field's, or the metric as written (`sum(total)`). */
  key: string;
  /** The output column of the grouped statement (`g0`, `m1`). */
  alias: string;
  sql: RawBuilder<unknown>;
  type: SqlType;
}

function invalid(param: string, message: string) {
  return badRequest(`The ${param} is not valid: ${message}`, [{ path: `/${param}`, message }]);
}

/** A stored single-valued field (or `id`, `createdAt`, `updatedAt`) the caller may read on every row; else a 400 naming it. */
function readableScalar(app: CompiledApp, model: CompiledModel, json: RecordJson, name: string, param: string) {
  const f = fieldSql(app, model, name, 't');
  const access = json.visibility(model).get(name);
  if (f.kind !== 'scalar' || (access && access.kind !== 'visible')) {
    throw invalid(param, `'${name}' is not a field of ${model.name} that the caller may read and ${param === 'groupBy' ? 'group by' : 'measure'}`);
  }
  return f;
}

function parseGroups(app: CompiledApp, model: CompiledModel, json: RecordJson, raw: string | undefined): Column[] {
  if (raw === undefined || raw.trim() === '') return [];
  const names = raw.split(',').map((n) => n.trim());
  if (names.length > MAX_GROUPS) throw invalid('groupBy', `at most ${MAX_GROUPS} fields`);
  return names.map((name, i) => {
    if (name === '') throw invalid('groupBy', 'an empty field name');
    if (names.indexOf(name) !== i) throw invalid('groupBy', `'${name}' appears twice`);
    const f = readableScalar(app, model, json, name, 'groupBy');
    const field = model.fieldsByName.get(name);
    if (field && isFileType(field.to)) throw invalid('groupBy', `'${name}' is a file field: it cannot be grouped by`);
    return { key: name, alias: `g${i}`, sql: f.sql, type: f.type };
  });
}

const METRIC = /^([A-Za-z]+)(?:\(\s*([^()\s]*)\s*\))?$/;

function parseMetrics(app: CompiledApp, model: CompiledModel, json: RecordJson, raw: string | undefined): Column[] {
  const entries = raw === undefined || raw.trim() === '' ? ['count'] : raw.split(',').map((m) => m.trim());
  if (entries.length > MAX_METRICS) throw invalid('metrics', `at most ${MAX_METRICS} metrics`);
  const seen = new Set<string>();
  return entries.map((entry, i) => {
    const match = METRIC.exec(entry);
    const fn = match?.[1] as Fn | undefined;
    const name = match?.[2];
    if (!match || !fn || !FUNCTIONS.includes(fn) || (fn !== 'count' && !name) || name === '') {
      throw invalid('metrics', `'${entry}' is not a metric: count, count(field), countDistinct(field), sum(field), avg(field), min(field) or max(field)`);
    }
    const key = name === undefined ? fn : `${fn}(${name})`;
    if (seen.has(key)) throw invalid('metrics', `'${key}' appears twice`);
    seen.add(key);
    const alias = `m${i}`;
    if (name === undefined) return { key, alias, sql: sql`count(*)`, type: 'float8' };
    const f = readableScalar(app, model, json, name, 'metrics');
    const field = model.fieldsByName.get(name);
    switch (fn) {
      case 'count':
        return { key, alias, sql: sql`count(${f.sql})`, type: 'float8' };
      case 'countDistinct':
        return { key, alias, sql: sql`count(distinct ${f.sql})`, type: 'float8' };
      case 'sum':
      case 'avg':
        if (!NUMERIC.has(f.type)) throw invalid('metrics', `'${key}': ${fn} needs a number field, and '${name}' is not one`);
        return { key, alias, sql: fn === 'sum' ? sql`sum(${f.sql})::float8` : sql`avg(${f.sql})::float8`, type: 'float8' };
      default:
        if (!ORDERED.has(f.type) || (field && isFileType(field.to))) throw invalid('metrics', `'${key}': ${fn} needs a text, number, date or time field, and '${name}' is not one`);
        return { key, alias, sql: fn === 'min' ? sql`min(${f.sql})` : sql`max(${f.sql})`, type: f.type };
    }
  });
}

/** `sort` over the answer's members (metrics as written, grouped fields); the grouped fields always close it. */
function parseOrder(sort: string | undefined, groups: Column[], metrics: Column[], alias: string): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  const used = new Set<string>();
  for (const raw of sort === undefined || sort.trim() === '' ? [] : sort.split(',')) {
    const part = raw.trim();
    const descending = part.startsWith('-');
    const key = part.replace(/^[-+]/, '');
    const column = [...metrics, ...groups].find((c) => c.key === key);
    if (!column) throw invalid('sort', `'${key}' is neither a metric nor a grouped field of this aggregate`);
    if (used.has(key)) throw invalid('sort', `'${key}' appears twice`);
    used.add(key);
    parts.push(descending ? sql`${ident(alias, column.alias)} desc` : ident(alias, column.alias));
  }
  for (const group of groups) if (!used.has(group.key)) parts.push(ident(alias, group.alias));
  return parts.length === 0 ? sql`1` : sql.join(parts);
}

/** A value in the answer's JSON: a timestamp as the records write it (UTC, milliseconds). */
function output(column: Column, alias: string): RawBuilder<unknown> {
  const value = ident(alias, column.alias);
  return column.type === 'timestamptz' ? sql`to_char(${value} at time zone 'UTC', ${ISO_UTC})` : value;
}

function whereOf(conditions: Condition[]): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  for (const c of conditions) {
    // No readable row: the statement still runs, so an aggregate without groups answers its zero counts.
    if (c.kind === 'none') return sql`false`;
    if (c.kind === 'where') parts.push(sql`(${c.sql})`);
  }
  return parts.length === 0 ? sql`true` : sql.join(parts, sql.raw(' and '));
}

function executorOf(db: Db | Executor): Executor {
  return 'kysely' in db && 'driver' in db ? db.kysely : db;
}

/** The page of groups as JSON text: `{"items":[{"group":{…},"count":n,…}],"total":groups,"offset":n}`. */
export async function aggregateJson(db: Db | Executor, app: CompiledApp, model: CompiledModel, options: AggregateOptions): Promise<string> {
  const limit = options.limit ?? DEFAULT_LIMIT;
  const offset = options.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 0 || limit > MAX_LIMIT) throw invalid('limit', `a whole number from 0 to ${MAX_LIMIT}`);
  if (!Number.isSafeInteger(offset) || offset < 0) throw invalid('offset', 'a whole number from 0');
  const executor = executorOf(db);
  const bypass = options.ctx.bypassRules === true;
  const ctx = { auth: options.ctx.auth, operation: 'read' as const, now: options.ctx.now, env: options.ctx.env ?? {} };
  ctx.auth = await authForFilter(executor, app, model, ctx.auth, options.filter);
  const json = new RecordJson(app, ctx, bypass, options.ctx);
  const groups = parseGroups(app, model, json, options.groupBy);
  const metrics = parseMetrics(app, model, json, options.metrics);
  const search = searchOf(model, options.search, json.visibility(model), ctx.env);
  const filter = options.filter;
  const where = whereOf([
    json.readCondition(model, 't'),
    ...(filter !== undefined && filter.trim() !== '' ? [filterCondition(app, model, filter, ctx, 't', bypass)] : []),
    ...(search ? [search.condition('t')] : []),
  ]);
  const selected = [...groups, ...metrics].map((c) => sql`${c.sql} as ${ident(c.alias)}`);
  const groupBy = groups.length > 0 ? sql`group by ${sql.join(groups.map((g) => ident(g.alias)))}` : sql``;
  const grouped = sql`select ${sql.join(selected)} from ${tableOf(app, model)} t where ${where} ${groupBy}`;
  const member = (c: Column) => sql`cast(${c.key} as text), ${output(c, 'g')}`;
  const group = groups.length > 0 ? sql`json_build_object(${sql.join(groups.map(member))})` : sql`'{}'::json`;
  const item = sql`json_build_object('group', ${group}, ${sql.join(metrics.map(member))})`;
  // The groups are made once (a CTE used twice is computed once): the page and their number.
  const items =
    limit === 0
      ? sql`'[]'::json`
      : sql`(select coalesce(json_agg(${item} order by ${parseOrder(options.sort, groups, metrics, 'g')}), '[]'::json)
          from (select * from a order by ${parseOrder(options.sort, groups, metrics, 'a')} limit ${limit} offset ${offset}) g)`;
  const query = sql<{ body: string }>`${sql.raw(PREPARED)}with a as (${grouped})
    select json_build_object('items', ${items}, 'total', (select count(*) from a), 'offset', cast(${offset} as bigint))::text as body`;
  try {
    const result = await query.execute(executor);
    return result.rows[0].body;
  } catch (error) {
    // A data error from a value the filter brought (a bad date): 400 naming `/filter`, as lists answer.
    const code = (error as { code?: unknown } | null)?.code;
    if (filter !== undefined && typeof code === 'string' && code.startsWith('22')) throw invalid('filter', (error as Error).message);
    throw error;
  }
}
