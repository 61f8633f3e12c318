// Reading the request log and the application's runs and jobs (DESIGN §19): the logs page
// (filters, newest first, keyset cursor) and the metrics series over a range and a step.
import { sql, type RawBuilder } from 'kysely';
import { badRequest } from '../errors.ts';
import type { Executor } from '../storage/db.ts';
import { toIso } from '../storage/sql.ts';

export interface LogFilters {
  from?: string;
  to?: string;
  /** `404` or a class: `4xx`. */
  status?: string;
  route?: string;
  method?: string;
  userId?: string;
  serverVersion?: string;
  cursor?: string;
  limit: number;
}

export interface LogRow {
  id: string;
  at: string;
  serverVersion: string;
  method: string;
  route: string;
  status: number;
  durationMs: number;
  userId: string | null;
  bytes: number | null;
  errorType: string | null;
}

/** The cursor names the last row of a page (its time and id): the next page starts strictly after it. */
function encodeCursor(row: LogRow): string {
  return Buffer.from(JSON.stringify([row.at, row.id])).toString('base64url');
}

function decodeCursor(cursor: string): { at: string; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof at === 'string' && typeof id === 'string' && !Number.isNaN(Date.parse(at)) && /^[0-9a-f-]{36}$/.test(id)) return { at, id };
  } catch {
    // Not ours: refused below.
  }
  throw badRequest('The cursor is not one this API gave out.', [{ path: '/cursor', message: 'is not a cursor of a previous page' }]);
}

function statusCondition(status: string): RawBuilder<unknown> {
  const match = /^([1-5])xx$/i.exec(status);
  if (match) return sql`status between ${Number(match[1]) * 100} and ${Number(match[1]) * 100 + 99}`;
  return sql`status = ${Number(status)}`;
}

export async function listLogs(executor: Executor, applicationId: string, filters: LogFilters): Promise<{ items: LogRow[]; nextCursor: string | null }> {
  const conditions: RawBuilder<unknown>[] = [sql`application_id = ${applicationId}`];
  if (filters.from) conditions.push(sql`at >= ${filters.from}`);
  if (filters.to) conditions.push(sql`at < ${filters.to}`);
  if (filters.status) conditions.push(statusCondition(filters.status));
  if (filters.route) conditions.push(sql`route = ${filters.route}`);
  if (filters.method) conditions.push(sql`method = ${filters.method.toUpperCase()}`);
  if (filters.userId) conditions.push(sql`user_id = ${filters.userId}`);
  if (filters.serverVersion) conditions.push(sql`server_version = ${filters.serverVersion}`);
  if (filters.cursor) {
    const after = decodeCursor(filters.cursor);
    conditions.push(sql`(at, id) < (${after.at}::timestamptz, ${after.id}::uuid)`);
  }
  const result = await sql<{
    id: string;
    at: Date | string;
    server_version: string;
    method: string;
    route: string;
    status: number;
    duration_ms: number;
    user_id: string | null;
    bytes: number | null;
    error_type: string | null;
  }>`select id, at, server_version, method, route, status, duration_ms, user_id, bytes, error_type
     from appbuilder.request_log where ${sql.join(conditions, sql` and `)}
     order by at desc, id desc limit ${filters.limit + 1}`.execute(executor);
  const items = result.rows.slice(0, filters.limit).map((r) => ({
    id: r.id,
    at: toIso(r.at)!,
    serverVersion: r.server_version,
    method: r.method,
    route: r.route,
    status: Number(r.status),
    durationMs: Number(r.duration_ms),
    userId: r.user_id,
    bytes: r.bytes === null ? null : Number(r.bytes),
    errorType: r.error_type,
  }));
  return { items, nextCursor: result.rows.length > filters.limit ? encodeCursor(items[items.length - 1]) : null };
}

export const MAX_POINTS = 1_440;
const MAX_RANGE_MS = 31 * 86_400_000;

export interface MetricsRange {
  from: Date;
  to: Date;
  stepSeconds: number;
}

/** The range of a metrics request: `to` now, `from` an hour before, `step` 60 s unless given. */
export function metricsRange(query: { from?: string; to?: string; step?: number }, now = new Date()): MetricsRange {
  const to = query.to ? new Date(query.to) : now;
  const from = query.from ? new Date(query.from) : new Date(to.getTime() - 3_600_000);
  const stepSeconds = query.step ?? 60;
  if (from >= to) throw badRequest('`from` must be before `to`.', [{ path: '/from', message: 'is not before to' }]);
  if (to.getTime() - from.getTime() > MAX_RANGE_MS) throw badRequest('The range is longer than 31 days.', [{ path: '/from', message: 'is more than 31 days before to' }]);
  const points = Math.ceil((to.getTime() - from.getTime()) / (stepSeconds * 1000));
  if (points > MAX_POINTS) {
    throw badRequest(`The range and step give ${points} points; at most ${MAX_POINTS}: use a larger step.`, [{ path: '/step', message: `gives more than ${MAX_POINTS} points` }]);
  }
  return { from, to, stepSeconds };
}

const round = (value: unknown): number | null => (value === null || value === undefined ? null : Math.round(Number(value) * 1000) / 1000);

/** Bucket index of a timestamp column within the range. */
function bucket(column: RawBuilder<unknown>, range: MetricsRange): RawBuilder<number> {
  return sql<number>`floor((extract(epoch from ${column}) - ${range.from.getTime() / 1000}) / ${range.stepSeconds})::int`;
}

interface RequestAgg {
  server_version: string;
  method: string;
  route: string;
  b: number | null;
  requests: number | string;
  e4: number | string;
  e5: number | string;
  p: Array<number | string> | string | null;
}

function percentiles(p: RequestAgg['p']): [number | null, number | null, number | null] {
  // `pg` returns float8[] as an array; PGlite too, but a text form is read defensively.
  const values = Array.isArray(p) ? p : typeof p === 'string' ? p.replace(/[{}]/g, '').split(',') : [];
  return [round(values[0]), round(values[1]), round(values[2])];
}

function requestPoint(row: RequestAgg) {
  const [p50, p95, p99] = percentiles(row.p);
  return { requests: Number(row.requests), errors4xx: Number(row.e4), errors5xx: Number(row.e5), p50Ms: p50, p95Ms: p95, p99Ms: p99 };
}

/** Requests, 4xx, 5xx and latency percentiles per version, method and route: per step, and over the whole range. */
export async function requestSeries(executor: Executor, applicationId: string, range: MetricsRange) {
  const result = await sql<RequestAgg>`
    select server_version, method, route, b, count(*) as requests,
      count(*) filter (where status between 400 and 499) as e4, count(*) filter (where status >= 500) as e5,
      percentile_cont(array[0.5, 0.95, 0.99]) within group (order by duration_ms) as p
    from (
      select server_version, method, route, status, duration_ms, ${bucket(sql`at`, range)} as b from appbuilder.request_log
      where application_id = ${applicationId} and at >= ${range.from.toISOString()} and at < ${range.to.toISOString()}
    ) r
    group by grouping sets ((server_version, method, route, b), (server_version, method, route))
    order by server_version, route, method, b nulls first`.execute(executor);
  const series = new Map<string, { serverVersion: string; method: string; route: string; total: ReturnType<typeof requestPoint>; points: Array<{ at: string } & ReturnType<typeof requestPoint>> }>();
  for (const row of result.rows) {
    const key = `${row.server_version} ${row.method} ${row.route}`;
    if (row.b === null) {
      series.set(key, { serverVersion: row.server_version, method: row.method, route: row.route, total: requestPoint(row), points: [] });
    } else {
      series.get(key)?.points.push({ at: new Date(range.from.getTime() + Number(row.b) * range.stepSeconds * 1000).toISOString(), ...requestPoint(row) });
    }
  }
  return [...series.values()];
}

/** Action runs and their failures per version and action, per step and in total. */
export async function runSeries(executor: Executor, applicationId: string, range: MetricsRange) {
  const result = await sql<{ server_version: string; action_id: string; b: number | null; runs: number | string; failures: number | string; p50: number | null }>`
    select server_version, action_id, b, count(*) as runs,
      count(*) filter (where status = 'failed') as failures, percentile_cont(0.5) within group (order by duration_ms) as p50
    from (
      select server_version, action_id, status, duration_ms, ${bucket(sql`started_at`, range)} as b from appbuilder.runs
      where application_id = ${applicationId} and started_at >= ${range.from.toISOString()} and started_at < ${range.to.toISOString()}
    ) r
    group by grouping sets ((server_version, action_id, b), (server_version, action_id))
    order by server_version, action_id, b nulls first`.execute(executor);
  const series = new Map<string, { serverVersion: string; actionId: string; total: { runs: number; failures: number; p50Ms: number | null }; points: Array<{ at: string; runs: number; failures: number; p50Ms: number | null }> }>();
  for (const row of result.rows) {
    const key = `${row.server_version} ${row.action_id}`;
    const point = { runs: Number(row.runs), failures: Number(row.failures), p50Ms: round(row.p50) };
    if (row.b === null) series.set(key, { serverVersion: row.server_version, actionId: row.action_id, total: point, points: [] });
    else series.get(key)?.points.push({ at: new Date(range.from.getTime() + Number(row.b) * range.stepSeconds * 1000).toISOString(), ...point });
  }
  return [...series.values()];
}

/** Jobs of the application finished in the range, per type: how many, how many failed, their durations. */
export async function jobSeries(executor: Executor, applicationId: string, range: MetricsRange) {
  const result = await sql<{ job_type: string; jobs: number | string; failed: number | string; p50: number | null; max: number | null }>`
    select job_type, count(*) as jobs, count(*) filter (where status = 'failed') as failed,
      percentile_cont(0.5) within group (order by extract(epoch from (completed_at - started_at)) * 1000) as p50,
      max(extract(epoch from (completed_at - started_at)) * 1000) as max
    from appbuilder.jobs
    where application_id = ${applicationId} and completed_at >= ${range.from.toISOString()} and completed_at < ${range.to.toISOString()}
    group by job_type order by job_type`.execute(executor);
  return result.rows.map((r) => ({ jobType: r.job_type, jobs: Number(r.jobs), failed: Number(r.failed), p50DurationMs: round(r.p50), maxDurationMs: round(r.max) }));
}
