// The per-version OpenAPI of `POST /{resource}/import` (runtime/http/import-routes.ts): rows of
// NDJSON, CSV or a JSON array written by the data import's writer, for the app's administrators.
import type { CompiledApp } from '../compiled-app.ts';
import { safeName, schemaRef, type JsonSchema } from './schemas.ts';

type PathItem = Record<string, unknown>;

/** Only the app's administrators import: a management credential acting for the app. */
const ADMIN_SECURITY = [{ builderBearer: [], apiClient: [] }];

const COUNT = { type: 'integer', minimum: 0 };

/** The answer of an import: per model rows read, imported and rejected; the rows refused. */
const IMPORT_REPORT: JsonSchema = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['succeeded'] },
    models: {
      type: 'array',
      items: { type: 'object', properties: { model: { type: 'string' }, rows: COUNT, imported: COUNT, rejected: COUNT }, required: ['model', 'rows', 'imported', 'rejected'] },
    },
    errors: {
      type: 'array',
      description: 'The rows refused under `onError=skip` (the first 100).',
      items: {
        type: 'object',
        properties: { model: { type: 'string' }, row: COUNT, line: COUNT, path: { type: 'string' }, message: { type: 'string' } },
        required: ['model', 'row', 'path', 'message'],
      },
    },
    notes: { type: 'array', items: { type: 'string' }, description: 'Columns left out, said once each.' },
  },
  required: ['status', 'models', 'errors', 'notes'],
};

/** `POST /{resource}/import` for every model, and `ImportReport`, its answer. */
export function addImportPaths(app: CompiledApp, paths: Record<string, PathItem>, schemas: Record<string, JsonSchema>, errors: (...statuses: number[]) => Record<string, JsonSchema>): void {
  if (app.models.length === 0) return;
  schemas.ImportReport = IMPORT_REPORT;
  for (const model of app.models) {
    const name = safeName(model.name);
    const row = schemaRef(`${name}Create`);
    paths[`/${model.resource}/import`] = {
      post: {
        operationId: `import${name}`,
        summary: `Import ${model.name} records in bulk (administrators)`,
        description:
          `Writes many ${model.name} records in one transaction, streamed: NDJSON (one object a line), CSV (a header naming fields) or a JSON array of objects. ` +
          'Members are field names; relationships take record ids; an `id` that is a uuid is kept. No realtime event or event trigger runs per row. ' +
          'With `onError=abort` (default) the first bad row refuses the whole import (422, nothing kept); with `skip` the good rows are kept and each bad row is reported.',
        tags: [model.name],
        security: ADMIN_SECURITY,
        parameters: [{ name: 'onError', in: 'query', schema: { type: 'string', enum: ['abort', 'skip'], default: 'abort' } }],
        requestBody: {
          required: true,
          content: {
            'application/x-ndjson': { schema: { type: 'string', description: `One ${name}Create object a line.` } },
            'text/csv': { schema: { type: 'string', description: 'A header row naming fields, then one record a row.' } },
            'application/json': { schema: { type: 'array', items: row } },
          },
        },
        responses: { 200: { description: 'The import report.', content: { 'application/json': { schema: schemaRef('ImportReport') } } }, ...errors(400, 401, 403, 422) },
      },
    };
  }
}
