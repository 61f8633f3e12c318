// The read side of the generated API (DESIGN §6, spec endpoints 11-13): one statement per
// request, the JSON built by PostgreSQL and passed through as text, the total in the same
// statement (counted, or kept from an earlier count while the data has not changed: count-cache.ts).
// Statement text depends only on (model, rule shape, sort, filter shape): every value is a
// parameter, so the statements run as named prepared statements on `pg` and their plans are
// reused (storage/prepared.ts, DESIGN §3).
import { compactJson } from './compact-json.ts';
import { sql, type RawBuilder } from 'kysely';
import { badRequest } from '../../errors.ts';
import type { Db, Executor } from '../../storage/db.ts';
import { PREPARED } from '../../storage/prepared.ts';
import { isUuid } from '../../tools/ids.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { authForFilter } from '../auth-reads.ts';
import { tableOf } from './columns.ts';
import { dropMembers, fillComputed } from './computed-js.ts';
import { totalSource, type CountedRow, type TotalSource } from './count-cache.ts';
import { parseFields, type Selection } from './fields-param.ts';
import { RecordJson } from './record-json.ts';
import { filterCondition, type Condition, type RuleContext } from './rule-sql.ts';
import { relevanceSort, searchOf } from './search.ts';
import { orderBy, parseSort } from './sort.ts';

/** What a read knows about the caller; administrators and the system bypass the rules. */
export interface ReadContext extends RuleContext {
  bypassRules?: boolean;
  /** At most this many entries in a to-many id array or expansion (APPBUILDER_RELATION_LIMIT; default 100). */
  relationLimit?: number;
  /** At most this many ids in a to-many id array inside an embedded record (APPBUILDER_EMBEDDED_ID_LIMIT; default 10). */
  embeddedIdLimit?: number;
  /** The version's files route (absolute, ending in `/`): file fields read as URLs under it; else as stored. */
  filesUrl?: string;
}

export interface ListOptions {
  ctx: ReadContext;
  /** 1-1000, default 20. */
  limit?: number;
  /** ≥ 0, default 0. */
  offset?: number;
  /** `-deadline,title`. */
  sort?: string;
  /** A CEL boolean over `record`. */
  filter?: string;
  /** `title,deadline,user.name` (fields-param.ts); every member when left out. */
  fields?: string;
  /** Full-text search over the readable text fields (search.ts); ordered by relevance unless `sort` says otherwise. */
  search?: string;
  /** Only the rows where this holds (on the row alias given): the sub-collection of one parent (related.ts). */
  within?: (alias: string) => RawBuilder<unknown>;
}

export type JsonRecord = Record<string, unknown> & { id: string };

export interface Page {
  items: JsonRecord[];
  total: number;
  offset: number;
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 1000;

function executorOf(db: Db | Executor): Executor {
  return 'kysely' in db && 'driver' in db ? db.kysely : db;
}

function readContext(ctx: ReadContext): RuleContext {
  return { auth: ctx.auth, operation: 'read', now: ctx.now, env: ctx.env ?? {} };
}

/** `limit` 0 answers the total alone (DESIGN §6). */
function checkPaging(limit: number, offset: number): void {
  if (!Number.isInteger(limit) || limit < 0 || limit > MAX_LIMIT) {
    throw badRequest(`limit must be a whole number from 0 to ${MAX_LIMIT}.`, [{ path: '/limit', message: 'is not valid' }]);
  }
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw badRequest('offset must be a whole number from 0.', [{ path: '/offset', message: 'is not valid' }]);
  }
}

/** Combines conditions with `and`; null when one of them excludes every row. */
export function whereOf(conditions: Condition[]): RawBuilder<unknown> | null {
  const parts: RawBuilder<unknown>[] = [];
  for (const c of conditions) {
    if (c.kind === 'none') return null;
    if (c.kind === 'where') parts.push(sql`(${c.sql})`);
  }
  return parts.length === 0 ? sql`true` : sql.join(parts, sql.raw(' and '));
}

/** A data error from a value the filter brought (a bad date, an out-of-range number): 400 naming `/filter`. */
export function filterValueError(error: unknown, filter: string | undefined): Error | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (filter === undefined || typeof code !== 'string' || !code.startsWith('22')) return null;
  const message = (error as Error).message;
  return badRequest(`The filter is not valid: ${message}`, [{ path: '/filter', message }]);
}

async function runRow<Row extends { body: string }>(executor: Executor, query: RawBuilder<unknown>, filter?: string): Promise<Row | undefined> {
  try {
    const result = await sql<Row>`${query}`.execute(executor);
    return result.rows[0];
  } catch (error) {
    throw filterValueError(error, filter) ?? error;
  }
}

/** The page as JSON text (`{"items":[...],"total":n,"offset":n}`), ready to send. */
export async function listRecordsJson(db: Db | Executor, app: CompiledApp, model: CompiledModel, options: ListOptions): Promise<string> {
  const { text, page } = await list(db, app, model, options);
  return text ?? JSON.stringify(page);
}

export async function listRecords(db: Db | Executor, app: CompiledApp, model: CompiledModel, options: ListOptions): Promise<Page> {
  const { text, page } = await list(db, app, model, options);
  return page ?? (JSON.parse(text!) as Page);
}

async function list(db: Db | Executor, app: CompiledApp, model: CompiledModel, options: ListOptions): Promise<{ text?: string; page?: Page }> {
  const limit = options.limit ?? DEFAULT_LIMIT;
  const offset = options.offset ?? 0;
  checkPaging(limit, offset);
  const filter = options.filter;
  const executor = executorOf(db);
  const ctx = readContext(options.ctx);
  ctx.auth = await authForFilter(executor, app, model, ctx.auth, filter);
  const bypass = options.ctx.bypassRules === true;
  const json = new RecordJson(app, ctx, bypass, options.ctx);
  const search = searchOf(model, options.search, json.visibility(model), ctx.env);
  const relevance = relevanceSort(options.sort, search);
  const keys = parseSort(app, model, relevance.sort, json.visibility(model));
  const selection = parseFields(app, model, options.fields, (m) => json.visibility(m));
  const conditions = (alias: string): Condition[] => [
    json.readCondition(model, alias),
    ...(filter !== undefined && filter.trim() !== '' ? [filterCondition(app, model, filter, ctx, alias, bypass)] : []),
    ...(search ? [search.condition(alias)] : []),
    ...(options.within ? [{ kind: 'where' as const, sql: options.within(alias) }] : []),
  ];
  const where = whereOf(conditions('t'));
  // An anonymous caller of an owner-only model, a filter folding to false: no query at all.
  if (!where) return { page: { items: [], total: 0, offset } };
  const table = tableOf(app, model);
  const order = (alias: string) => (relevance.byRelevance && search ? sql`${search.rank(alias)} desc, ${orderBy(app, model, keys, alias)}` : orderBy(app, model, keys, alias));
  // `limit=0`: the total alone, no page built.
  const items =
    limit === 0
      ? sql`'[]'::json`
      : sql`(select coalesce(json_agg(${json.record(model, 'p', true, selection)} order by ${order('p')}), '[]'::json)
        from (select * from ${table} t where ${where} order by ${order('t')} limit ${limit} offset ${offset}) p)`;
  const run = (total: TotalSource) =>
    runRow<CountedRow & { body: string }>(
      executor,
      sql`${sql.raw(PREPARED)}select json_build_object('items', ${items}, 'total', c.total, 'offset', cast(${offset} as bigint))::text as body, c.total, c.version, c.clean
        from ${total.from}`,
      filter,
    );
  let total = totalSource(executor, app, table, where);
  let row: (CountedRow & { body: string }) | undefined;
  try {
    row = await run(total);
  } catch (error) {
    if (!total.missing(error)) throw error;
    total = totalSource(executor, app, table, where);
    row = await run(total);
  }
  if (row === undefined) throw new Error('The list query returned no row');
  total.remember(row);
  const text = compactJson(row.body);
  if (json.jsComputed.size === 0) return { text };
  const page = JSON.parse(text) as Page;
  fillComputed(app, model, page.items, json.jsComputed, { now: ctx.now, env: ctx.env ?? {} });
  if (json.extras.size > 0) dropMembers(app, model, page.items, json.extras);
  return { page };
}

/** One record as JSON text; undefined when it does not exist or the caller may not read it. */
export async function getRecordJson(db: Db | Executor, app: CompiledApp, model: CompiledModel, id: string, ctx: ReadContext, fields?: string): Promise<string | undefined> {
  const result = await get(db, app, model, id, ctx, fields);
  return result && (result.text ?? JSON.stringify(result.record));
}

export async function getRecord(db: Db | Executor, app: CompiledApp, model: CompiledModel, id: string, ctx: ReadContext, fields?: string): Promise<JsonRecord | undefined> {
  const result = await get(db, app, model, id, ctx, fields);
  return result && (result.record ?? (JSON.parse(result.text!) as JsonRecord));
}

async function get(
  db: Db | Executor,
  app: CompiledApp,
  model: CompiledModel,
  id: string,
  context: ReadContext,
  fields?: string,
): Promise<{ text?: string; record?: JsonRecord } | undefined> {
  const ctx = readContext(context);
  const json = new RecordJson(app, ctx, context.bypassRules === true, context);
  // Checked first: a bad `fields` is a 400 whether or not the record exists.
  const selection: Selection | undefined = parseFields(app, model, fields, (m) => json.visibility(m));
  if (typeof id !== 'string' || !isUuid(id)) return undefined;
  const where = whereOf([json.readCondition(model, 't')]);
  if (!where) return undefined;
  const query = sql`${sql.raw(PREPARED)}select (${json.record(model, 't', true, selection)})::text as body
    from ${tableOf(app, model)} t where t.id = cast(${id} as uuid) and ${where}`;
  const body = (await runRow(executorOf(db), query))?.body;
  if (body === undefined) return undefined;
  const text = compactJson(body);
  if (json.jsComputed.size === 0) return { text };
  const record = JSON.parse(text) as JsonRecord;
  fillComputed(app, model, [record], json.jsComputed, { now: ctx.now, env: ctx.env ?? {} });
  if (json.extras.size > 0) dropMembers(app, model, [record], json.extras);
  return { record };
}

/**
 * Several records as JSON text by id, each exactly as getRecordJson answers it, in ONE statement
 * (a batch's run of creates read back); an id missing or unreadable has no entry.
 */
export async function getRecordsJson(db: Db | Executor, app: CompiledApp, model: CompiledModel, ids: string[], context: ReadContext): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const ctx = readContext(context);
  const json = new RecordJson(app, ctx, context.bypassRules === true, context);
  const where = whereOf([json.readCondition(model, 't')]);
  if (!where || ids.length === 0) return found;
  const result = await sql<{ id: string; body: string }>`select t.id, (${json.record(model, 't', true, undefined)})::text as body
    from ${tableOf(app, model)} t where t.id = any(cast(${ids} as uuid[])) and ${where}`.execute(executorOf(db));
  for (const row of result.rows) {
    if (json.jsComputed.size === 0) {
      found.set(row.id, row.body);
      continue;
    }
    const record = JSON.parse(row.body) as JsonRecord;
    fillComputed(app, model, [record], json.jsComputed, { now: ctx.now, env: ctx.env ?? {} });
    if (json.extras.size > 0) dropMembers(app, model, [record], json.extras);
    found.set(row.id, JSON.stringify(record));
  }
  return found;
}
