// `POST /batch` and `GET /{resource}/export` in a version's OpenAPI document
// (docs/batch-and-export.md), left out where the app's own model or triggers keep those paths.
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { batchRouteTaken, MAX_BATCH_REQUESTS } from '../http/batch-route.ts';
import { exportRouteTaken } from '../http/export-route.ts';
import { safeName, schemaRef, type JsonSchema } from './schemas.ts';

type PathItem = Record<string, unknown>;
type Errors = (...statuses: number[]) => Record<string, JsonSchema>;

const BATCH_REQUEST: JsonSchema = {
  type: 'object',
  properties: {
    requests: {
      type: 'array',
      maxItems: MAX_BATCH_REQUESTS,
      items: {
        type: 'object',
        properties: {
          method: { type: 'string', enum: ['GET', 'POST', 'PATCH', 'DELETE'] },
          path: { type: 'string', pattern: '^/', description: 'A resource route relative to the version, with its query if any: `/toDos`, `/toDos/{id}?fields=title`.' },
          body: { description: 'The body of a POST or PATCH, as the route takes it alone.' },
        },
        required: ['method', 'path'],
      },
    },
  },
  required: ['requests'],
};

const BATCH_ANSWER: JsonSchema = {
  type: 'object',
  properties: {
    responses: {
      type: 'array',
      items: { type: 'object', properties: { status: { type: 'integer' }, body: { description: 'What the request answers alone; null for a 204.' } }, required: ['status', 'body'] },
    },
  },
  required: ['responses'],
};

// `index` names the failing request; a batch refused as a whole (not an object, over the limit) has none.
const BATCH_FAILURE = { 'application/problem+json': { schema: { allOf: [schemaRef('Problem'), { type: 'object', properties: { index: { type: 'integer', minimum: 0 } } }] } } };

function batchPath(security: unknown[]): Record<string, PathItem> {
  const failed = (description: string) => ({ description: `${description} (the failing request's \`index\`; nothing was written).`, content: BATCH_FAILURE });
  return {
    '/batch': {
      post: {
        operationId: 'batch',
        summary: `Run up to ${MAX_BATCH_REQUESTS} resource requests in one transaction, all or nothing`,
        description:
          'Each request runs in order, by the same handler as alone, as the caller (an end user under the rules, an administrator bypassing them); a later request sees what the earlier ones wrote. One failure answers its status with its problem and `index`, and nothing is written. Each record written raises its data-change event once, after the commit.',
        security,
        requestBody: { required: true, content: { 'application/json': { schema: BATCH_REQUEST } } },
        responses: {
          200: { description: 'Every request succeeded: their answers, in order.', content: { 'application/json': { schema: BATCH_ANSWER } } },
          400: failed('The batch or one of its requests is malformed'),
          401: failed('The credentials are missing or not valid'),
          403: failed('The access rules refuse a request'),
          404: failed('A request names no resource route, or a record the caller may not see'),
          405: failed('A request names a method its path does not answer'),
          409: failed('A request conflicts with the stored data'),
          422: failed('A value of a request is not valid'),
        },
      },
    },
  };
}

function exportPath(model: CompiledModel, listParameters: (model: CompiledModel) => JsonSchema[], security: unknown[], errors: Errors): Record<string, PathItem> {
  const parameters = listParameters(model).filter((p) => ['filter', 'fields'].includes(String((p as { name?: unknown }).name)));
  return {
    [`/${model.resource}/export`]: {
      get: {
        operationId: `export${safeName(model.name)}`,
        summary: `Every ${model.name} the caller may read, streamed as NDJSON or CSV`,
        description:
          'NDJSON: one record per line, each what a list item is. CSV: a header of the members (`id` first), one row per record, objects and arrays as their JSON text. In id order, under the read rule and field rules as a list.',
        tags: [model.name],
        security,
        parameters: [{ name: 'format', in: 'query', schema: { type: 'string', enum: ['ndjson', 'csv'], default: 'ndjson' } }, ...parameters],
        responses: {
          200: {
            description: `The ${model.name} records.`,
            content: { 'application/x-ndjson': { schema: { type: 'string' } }, 'text/csv': { schema: { type: 'string' } } },
          },
          ...errors(400, 401),
        },
      },
    },
  };
}

/** Adds the batch path and each model's export path to `paths`. */
export function addBulkPaths(
  app: CompiledApp,
  paths: Record<string, PathItem>,
  options: { listParameters: (model: CompiledModel) => JsonSchema[]; security: unknown[]; errors: Errors },
): void {
  for (const model of app.models) if (!exportRouteTaken(app, model)) Object.assign(paths, exportPath(model, options.listParameters, options.security, options.errors));
  if (!batchRouteTaken(app)) Object.assign(paths, batchPath(options.security));
}
