// `GET /{resource}/export?format=ndjson|csv&filter&fields` (docs/batch-and-export.md): every record
// the caller may read, streamed page by page (data/export.ts), as NDJSON (one record per line,
// each exactly a list item) or CSV (a header of the members, then one row per record; a value that
// is an object or an array is its JSON text). Memory stays one page whatever the row count: the
// next page is read only when the client has taken the one before.
import { badRequest } from '../../errors.ts';
import type { Db } from '../../storage/db.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { exportRecords, type RecordExport } from '../data/export.ts';
import { readContext, type ResourceRouteOptions } from './resource-routes.ts';
import type { RouteSource } from './router.ts';
import type { AppRequest, AppRoute } from './types.ts';

export const EXPORT_FORMATS = ['ndjson', 'csv'] as const;
type ExportFormat = (typeof EXPORT_FORMATS)[number];

const CONTENT_TYPES: Record<ExportFormat, string> = {
  ndjson: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};

function textParam(request: AppRequest, name: string): string | undefined {
  const raw = request.query[name];
  return Array.isArray(raw) ? raw[0] : raw;
}

/** One CSV cell (RFC 4180): quoted when it holds a comma, a quote or a line break; null and absent members are empty. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const csvLine = (cells: string[]) => `${cells.join(',')}\r\n`;

async function* ndjson(pages: RecordExport['pages']): AsyncGenerator<string> {
  for await (const page of pages) yield `${page.join('\n')}\n`;
}

async function* csv(exported: RecordExport): AsyncGenerator<string> {
  const { columns, pages } = exported;
  yield csvLine(columns.map(csvCell));
  for await (const page of pages) {
    yield page.map((text) => {
      const record = JSON.parse(text) as Record<string, unknown>;
      return csvLine(columns.map((name) => csvCell(record[name])));
    }).join('');
  }
}

function formatOf(request: AppRequest): ExportFormat {
  const format = textParam(request, 'format') ?? 'ndjson';
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw badRequest(`format must be one of ${EXPORT_FORMATS.join(', ')}.`, [{ path: '/format', message: `must be one of ${EXPORT_FORMATS.join(', ')}` }]);
  }
  return format as ExportFormat;
}

function exportRoute(db: Db, app: CompiledApp, model: CompiledModel, bounds: ResourceRouteOptions): AppRoute {
  return {
    method: 'GET',
    path: `/${model.resource}/export`,
    handler: async (request) => {
      const format = formatOf(request);
      const exported = await exportRecords(db, app, model, {
        ctx: readContext(request.caller, request.values?.env, bounds, request.filesUrl),
        filter: textParam(request, 'filter'),
        fields: textParam(request, 'fields'),
      });
      return {
        status: 200,
        headers: { 'content-type': CONTENT_TYPES[format], 'content-disposition': `attachment; filename="${model.resource}.${format}"`, 'cache-control': 'no-store' },
        stream: format === 'csv' ? csv(exported) : ndjson(exported.pages),
      };
    },
  };
}

/** Whether an HTTP trigger answers `GET /{resource}/export` itself: it keeps the path. */
export function exportRouteTaken(app: CompiledApp, model: CompiledModel): boolean {
  const path = `/${model.resource}/export`;
  return app.definition.triggers.some((t) => t.trigger.type === 'http' && t.trigger.method === 'GET' && t.trigger.path.replace(/\/+$/, '') === path);
}

export function exportRoutes(db: Db, options: ResourceRouteOptions = {}): RouteSource {
  return (app) => app.models.filter((model) => !exportRouteTaken(app, model)).map((model) => exportRoute(db, app, model, options));
}
