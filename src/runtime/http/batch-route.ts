// `POST /batch` (docs/batch-and-export.md): up to 100 requests to the version's resource routes,
// run in order in ONE transaction, each by the resource routes' own handlers (so each under its
// own rules, as the batch's caller), all or nothing. The handlers are the very ones the version
// serves, built over a handle bound to the batch's transaction: what one request writes, the next
// one reads, and a failure rolls every write back. Their outbox rows commit with the batch, and
// the event dispatcher and realtime hear of them once, after the commit.
import { sql } from 'kysely';
import { badRequest, Problem } from '../../errors.ts';
import type { Db, Executor } from '../../storage/db.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { getRecordsJson } from '../data/read.ts';
import { fileUrlsAsKeys } from '../writes/file-keys.ts';
import { createRecords } from '../writes/records.ts';
import { AfterCommit } from './after-commit.ts';
import { readContext, resourceRoutes, type ResourceRouteOptions } from './resource-routes.ts';
import { buildAppRouter, type RouteSource } from './router.ts';
import type { AppRequest, AppResponse, AppRoute } from './types.ts';

export const BATCH_PATH = '/batch';
/** At most this many requests in one batch. */
export const MAX_BATCH_REQUESTS = 100;
const METHODS = new Set(['GET', 'POST', 'PATCH', 'DELETE']);

interface BatchItem {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  body: unknown;
}

/** Whether the app's own model or an HTTP trigger answers at `/batch`: it keeps the path, and the app has no batch route. */
export function batchRouteTaken(app: CompiledApp): boolean {
  const own = BATCH_PATH.slice(1);
  return app.modelsByResource.has(own) || app.definition.triggers.some((t) => t.trigger.type === 'http' && t.trigger.path.replace(/\/+$/, '') === BATCH_PATH);
}

/** The write path's transaction wrapper, inside a transaction already open: the work joins it. */
class JoinedTransaction extends AfterCommit {
  override run<T>(db: Db, work: (trx: Executor) => Promise<T>): Promise<T> {
    return work(db.kysely);
  }
}

const invalid = (index: number, member: string, message: string) =>
  badRequest(`requests[${index}].${member} ${message}.`, [{ path: `/requests/${index}/${member}`, message }]);

/** The query of a relative path, repeated names as arrays (as Fastify parses a query). */
function queryOf(search: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of search) {
    const seen = query[name];
    query[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return query;
}

/** The batch's requests, checked before anything runs: a malformed batch is a 400 naming the member. */
function parseBatch(body: unknown): BatchItem[] {
  const requests = (body as { requests?: unknown } | null)?.requests;
  if (typeof body !== 'object' || body === null || !Array.isArray(requests)) {
    throw badRequest('The body must be {"requests": [{"method", "path", "body"?}, …]}.', [{ path: '/requests', message: 'must be an array' }]);
  }
  if (requests.length > MAX_BATCH_REQUESTS) {
    throw badRequest(`A batch holds at most ${MAX_BATCH_REQUESTS} requests; this one has ${requests.length}.`, [
      { path: '/requests', message: `must hold at most ${MAX_BATCH_REQUESTS} items` },
    ]);
  }
  return requests.map((item: unknown, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw invalid(index, 'method', 'must be set: each request is {"method", "path", "body"?}');
    const { method, path, body: itemBody } = item as { method?: unknown; path?: unknown; body?: unknown };
    if (typeof method !== 'string' || !METHODS.has(method.toUpperCase())) throw invalid(index, 'method', 'must be one of GET, POST, PATCH, DELETE');
    if (typeof path !== 'string' || !path.startsWith('/') || path.startsWith('//')) throw invalid(index, 'path', 'must be a path relative to the version, starting with /');
    const url = new URL(path, 'http://batch.invalid');
    return { method: method.toUpperCase(), path: url.pathname.replace(/\/+$/, '') || '/', query: queryOf(url.searchParams), body: itemBody };
  });
}

/** A handler's answer as a batch response member: its JSON parsed, no body as null. */
function answerOf(response: AppResponse): { status: number; body: unknown } {
  if (response.json !== undefined) return { status: response.status, body: JSON.parse(response.json) as unknown };
  return { status: response.status, body: response.body ?? null };
}

/** The model whose record request `item` creates (`POST /{resource}` with no query), if it is a create. */
function createdModel(app: CompiledApp, item: BatchItem): CompiledModel | undefined {
  if (item.method !== 'POST' || Object.keys(item.query).length > 0) return undefined;
  return app.modelsByResource.get(item.path.slice(1));
}

/** How many requests from `start` on create records of the same model (a run merged into one statement). */
function runOfCreates(app: CompiledApp, items: BatchItem[], start: number): { model: CompiledModel; length: number } | undefined {
  const model = createdModel(app, items[start]!);
  if (!model) return undefined;
  let end = start + 1;
  while (end < items.length && createdModel(app, items[end]!) === model) end++;
  return { model, length: end - start };
}

/**
 * A run of creates as ONE insert and ONE read-back (runtime/writes/records.ts createRecords), each
 * answered as its own `POST` would be. Null, with nothing of it kept (a savepoint), when the run
 * cannot be merged or any of it fails: the requests then run one by one, for each one's own error.
 */
async function mergedCreates(trx: Executor, app: CompiledApp, model: CompiledModel, run: BatchItem[], request: AppRequest, options: ResourceRouteOptions): Promise<Array<{ status: number; body: unknown }> | null> {
  await sql`savepoint batch_creates`.execute(trx);
  try {
    const bodies = run.map((item) => fileUrlsAsKeys(model, item.body, request.filesUrl));
    const ids = await createRecords(trx, app, model, bodies, request.caller);
    if (ids) {
      await sql`release savepoint batch_creates`.execute(trx);
      const found = await getRecordsJson(trx, app, model, ids, readContext(request.caller, request.values?.env, options, request.filesUrl));
      return ids.map((id) => ({ status: 201, body: JSON.parse(found.get(id) ?? JSON.stringify({ id })) as unknown }));
    }
  } catch {
    // undone below; the one-by-one run answers the failing request's own error
  }
  await sql`rollback to savepoint batch_creates`.execute(trx);
  return null;
}

/** The failure of request `index`: thrown out of the transaction (rolling it back), answered with its status. */
class BatchFailure extends Error {
  constructor(readonly index: number, readonly problem: Problem) {
    super(problem.message);
  }
}

export function batchRoute(db: Db, afterCommit: AfterCommit, options: ResourceRouteOptions = {}): RouteSource {
  const joined = new JoinedTransaction();
  return (app: CompiledApp): AppRoute[] => batchRouteTaken(app) ? [] : [
    {
      method: 'POST',
      path: BATCH_PATH,
      handler: async (request: AppRequest): Promise<AppResponse> => {
        const items = parseBatch(request.body);
        try {
          const responses = await afterCommit.run(db, async (trx) => {
            // The version's resource routes over this transaction (cheap to build: a router of a few routes per model).
            const router = buildAppRouter(app, [resourceRoutes({ ...db, kysely: trx }, joined, options)]);
            const answers: Array<{ status: number; body: unknown }> = [];
            // Requests before this index run one by one (their run of creates could not be merged).
            let oneByOne = 0;
            for (const [index, item] of items.entries()) {
              if (index < answers.length) continue;
              const run = index >= oneByOne ? runOfCreates(app, items, index) : undefined;
              if (run && run.length > 1) {
                const merged = await mergedCreates(trx, app, run.model, items.slice(index, index + run.length), request, options);
                if (merged) {
                  answers.push(...merged);
                  continue;
                }
                oneByOne = index + run.length;
              }
              const route = router.find(item.method, item.path);
              if (!route) {
                const allow = router.allowed(item.path);
                const detail = allow.length > 0 ? `${item.method} is not a method of ${item.path} in a batch; it answers ${allow.join(', ')}.` : `No resource route for ${item.method} ${item.path} in a batch.`;
                throw new BatchFailure(index, new Problem(allow.length > 0 ? 405 : 404, detail, [{ path: `/requests/${index}/path`, message: detail }]));
              }
              try {
                const response = await route.handler({ ...request, method: item.method, path: item.path, params: route.params, query: item.query, body: item.body });
                answers.push(answerOf(response));
              } catch (error) {
                if (error instanceof Problem) throw new BatchFailure(index, error);
                throw error;
              }
            }
            return answers;
          });
          return { status: 200, body: { responses } };
        } catch (error) {
          if (!(error instanceof BatchFailure)) throw error;
          return { status: error.problem.status, headers: { 'content-type': 'application/problem+json' }, body: JSON.stringify({ index: error.index, ...error.problem.toJSON() }) };
        }
      },
    },
  ];
}
