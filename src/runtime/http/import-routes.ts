/**
 * `POST /{resource}/import` on a generated app: rows of NDJSON (`application/x-ndjson`), CSV
 * (`text/csv`) or a JSON array, read as a stream and written by the data import's writer
 * (src/imports/): the write path's field checks, no access rules, `onError=abort` (default, all or
 * nothing) or `skip`. Administrators only (a management credential acting as the app's
 * administrator). The answer is the import's report.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { badRequest, forbidden, unprocessable } from '../../errors.ts';
import type { Db } from '../../storage/db.ts';
import { bypassesRules } from '../caller.ts';
import { importRows } from '../../imports/run-import.ts';
import { csvRows, jsonRows } from '../../imports/text-rows.ts';
import type { SourceRow } from '../../imports/sql-source.ts';
import type { RouteSource } from './router.ts';
import type { AppRequest } from './types.ts';
import type { AfterCommit } from './after-commit.ts';

const CSV_TYPES = ['text/csv', 'application/csv'];
const NDJSON_TYPES = ['application/x-ndjson', 'application/ndjson', 'application/jsonl', 'application/x-jsonlines'];

/** The error fastify gives a content type it has no parser for: answered 415 naming JSON (api/problem.ts). */
function unsupported(type: string): Error {
  return Object.assign(new Error(`Unsupported Media Type: ${type}`), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 });
}

/**
 * Lets `POST …/{resource}/import` of the generated apps take CSV and NDJSON bodies as streams;
 * every other route still answers those content types 415, as any body that is not JSON.
 */
export function acceptImportBodies(fastify: FastifyInstance): void {
  for (const type of [...CSV_TYPES, ...NDJSON_TYPES]) {
    if (fastify.hasContentTypeParser(type)) continue;
    fastify.addContentTypeParser(type, (request, payload, done) => {
      if (/\/import\/?$/.test(request.url.split('?')[0]!)) done(null, payload);
      else done(unsupported(type), undefined);
    });
  }
}

function mediaType(request: AppRequest): string {
  return String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

function rowsOf(request: AppRequest): AsyncIterable<SourceRow> {
  const type = mediaType(request);
  const body = request.body;
  if (CSV_TYPES.includes(type) || NDJSON_TYPES.includes(type)) {
    const stream = body instanceof Readable ? body : Readable.from([typeof body === 'string' ? body : '']);
    return CSV_TYPES.includes(type) ? csvRows(stream) : jsonRows(stream);
  }
  if (Array.isArray(body)) return jsonRows(Buffer.from(JSON.stringify(body)));
  throw badRequest('Send the rows as NDJSON (application/x-ndjson), CSV (text/csv) or a JSON array of objects.', [
    { path: '', message: `content type ${type || 'none'} is not one an import reads` },
  ]);
}

/** Each imported record raises its `{Model}.created` event (imports/import-events.ts), announced after the commit. */
export function importRoutes(db: Db, afterCommit: AfterCommit): RouteSource {
  return (app) =>
    app.models.map((model) => ({
      method: 'POST' as const,
      path: `/${model.resource}/import`,
      handler: async (request: AppRequest) => {
        if (!bypassesRules(request.caller)) throw forbidden(`Only the application's administrators may import ${model.resource}.`);
        const raw = request.query.onError;
        const onError = (Array.isArray(raw) ? raw[0] : raw) ?? 'abort';
        if (onError !== 'abort' && onError !== 'skip') throw badRequest('onError must be abort or skip.', [{ path: '/onError', message: 'must be abort or skip' }]);
        const outcome = await importRows(db, app, model, rowsOf(request), onError);
        if (outcome.status === 'succeeded') afterCommit.committed();
        if (outcome.status === 'failed') {
          const first = outcome.report.errors[0];
          throw unprocessable(
            `${first ? `Row ${first.row}: ${first.path.slice(1) || 'the row'} ${first.message}` : 'A row was refused'}; nothing was imported.`,
            outcome.report.errors.map((e) => ({ path: `/${e.row}${e.path}`, message: e.message })),
          );
        }
        return { status: 200, body: { status: outcome.status, ...outcome.report } };
      },
    }));
}
