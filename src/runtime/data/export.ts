// Every record of a model the caller may read, in pages of `pageSize` by id (keyset: each page is
// one bounded statement starting after the last id of the one before, so a million rows cost a
// million rows once, never an offset scan and never all in memory). Each record is built by the
// same RecordJson as a list's item, under the same read rule, field rules and `fields`/`filter`,
// so an export holds exactly what the caller's list pages would. Pages are read one after the
// other without a snapshot: a record written during a long export may or may not be in it.
import { sql } from 'kysely';
import type { Db, Executor } from '../../storage/db.ts';
import { PREPARED } from '../../storage/prepared.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { authForFilter } from '../auth-reads.ts';
import { tableOf } from './columns.ts';
import { dropMembers, fillComputed } from './computed-js.ts';
import { parseFields } from './fields-param.ts';
import { filterValueError, whereOf, type JsonRecord, type ReadContext } from './read.ts';
import { RecordJson } from './record-json.ts';
import { filterCondition, type Condition, type RuleContext } from './rule-sql.ts';

export const EXPORT_PAGE_SIZE = 1000;
/** Below every uuid: the first page's "after", so every page runs the same prepared statement. */
const BEFORE_ALL = '00000000-0000-0000-0000-000000000000';

export interface ExportOptions {
  ctx: ReadContext;
  filter?: string;
  fields?: string;
  pageSize?: number;
}

export interface RecordExport {
  /** The top-level members a record may carry, in the order a record carries them (a CSV's header). */
  columns: string[];
  /** The records as JSON text, one page at a time; the first page was read before this is returned. */
  pages: AsyncGenerator<string[]>;
}

function executorOf(db: Db | Executor): Executor {
  return 'kysely' in db && 'driver' in db ? db.kysely : db;
}

/**
 * Checks the request (a bad `fields` or `filter` is a 400 before anything is sent) and reads the
 * first page (a filter value PostgreSQL refuses is a 400 too), then hands the pages out.
 */
export async function exportRecords(db: Db | Executor, app: CompiledApp, model: CompiledModel, options: ExportOptions): Promise<RecordExport> {
  const executor = executorOf(db);
  const ctx: RuleContext = { auth: options.ctx.auth, operation: 'read', now: options.ctx.now, env: options.ctx.env ?? {} };
  const filter = options.filter;
  ctx.auth = await authForFilter(executor, app, model, ctx.auth, filter);
  const bypass = options.ctx.bypassRules === true;
  const json = new RecordJson(app, ctx, bypass, options.ctx);
  const selection = parseFields(app, model, options.fields, (m) => json.visibility(m));
  const visibility = json.visibility(model);
  const columns = ['id', ...model.fields.filter((f) => visibility.get(f.name)?.kind !== 'hidden' && (!selection || selection.has(f.name))).map((f) => f.name)];
  const conditions: Condition[] = [json.readCondition(model, 't'), ...(filter !== undefined && filter.trim() !== '' ? [filterCondition(app, model, filter, ctx, 't', bypass)] : [])];
  const where = whereOf(conditions);
  const pageSize = options.pageSize ?? EXPORT_PAGE_SIZE;
  const record = where ? json.record(model, 'p', true, selection) : null;

  const page = async (after: string): Promise<Array<{ body: string; id: string }>> => {
    if (!where || !record) return [];
    const query = sql<{ body: string; id: string }>`${sql.raw(PREPARED)}select (${record})::text as body, p.id::text as id
      from (select * from ${tableOf(app, model)} t where ${where} and t.id > cast(${after} as uuid) order by t.id limit ${pageSize}) p
      order by p.id`;
    try {
      return (await query.execute(executor)).rows;
    } catch (error) {
      throw filterValueError(error, filter) ?? error;
    }
  };
  // json_agg separates an array's items with a newline (outside any string: a newline in a value is
  // escaped in JSON text), so a record is one line once those are dropped.
  const texts = (rows: Array<{ body: string }>): string[] => {
    if (json.jsComputed.size === 0) return rows.map((row) => row.body.replaceAll('\n', ''));
    const records = rows.map((row) => JSON.parse(row.body) as JsonRecord);
    fillComputed(app, model, records, json.jsComputed, { now: ctx.now, env: ctx.env ?? {} });
    if (json.extras.size > 0) dropMembers(app, model, records, json.extras);
    return records.map((r) => JSON.stringify(r));
  };

  const first = await page(BEFORE_ALL);
  async function* pages(): AsyncGenerator<string[]> {
    let rows = first;
    while (rows.length > 0) {
      yield texts(rows);
      if (rows.length < pageSize) return;
      rows = await page(rows[rows.length - 1].id);
    }
  }
  return { columns, pages: pages() };
}
