import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/index.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { DateTime, problemResponses, Uuid } from '../schemas.ts';
import { ApplicationSchema } from './application-schemas.ts';

const Count = Type.Integer({ minimum: 0 });

export const OnErrorSchema = Type.Union([Type.Literal('abort'), Type.Literal('skip')], {
  description: '`abort` (default): all or nothing, the first bad row stops the import and nothing is kept. `skip`: good rows are kept, each bad row is reported.',
});

/** The apply answer: the application, and with `importData` the data import it queued. */
export const AppliedApplicationSchema = Type.Composite([
  ApplicationSchema,
  Type.Object({
    dataImport: Type.Optional(
      Type.Object({ id: Uuid, status: Type.Literal('queued'), jobId: Uuid }, { description: 'With `importData`: the data import queued; its report at `GET …/applications/{applicationId}/data-imports/{id}`.' }),
    ),
  }),
]);

export const DataImportQueuedSchema = Type.Object({ id: Uuid, status: Type.Literal('queued'), jobId: Uuid }, { $id: 'DataImportQueued' });

export const DataImportSchema = Type.Object(
  {
    id: Uuid,
    applicationId: Uuid,
    specificationId: Type.Optional(Uuid),
    attachmentIds: Type.Array(Uuid),
    serverVersion: Type.Optional(Type.String({ description: 'The version written into (once the job has started).' })),
    onError: OnErrorSchema,
    status: Type.Union(['queued', 'running', 'succeeded', 'failed'].map((s) => Type.Literal(s))),
    jobId: Type.Optional(Uuid),
    models: Type.Array(Type.Object({ model: Type.String(), rows: Count, imported: Count, rejected: Count }), {
      description: 'Per model (and per many-to-many, as `Model.field`): rows read, imported and rejected.',
    }),
    errors: Type.Array(
      Type.Object({
        model: Type.String(),
        row: Type.Integer({ minimum: 0, description: "The row's place among its table's rows, from 1." }),
        line: Type.Optional(Type.Integer({ minimum: 0, description: 'The line of the document the row was read from.' })),
        path: Type.String({ description: 'JSON pointer of the field at fault (empty: the row).' }),
        message: Type.String(),
      }),
      { description: 'The first 100 rejected rows.' },
    ),
    notes: Type.Array(Type.String(), { description: 'Tables and columns no model or field takes, and values left out (binary data).' }),
    errorMessage: Type.Optional(Type.String()),
    createdAt: DateTime,
    startedAt: Type.Optional(DateTime),
    completedAt: Type.Optional(DateTime),
  },
  { $id: 'DataImport' },
);

const CreateBody = Type.Object(
  {
    specificationId: Type.Optional(Uuid),
    attachmentIds: Type.Optional(Type.Array(Uuid, { minItems: 1, maxItems: 50, uniqueItems: true })),
    version: Type.Optional(Type.String({ pattern: '^\\d+\\.\\d+\\.\\d+$', description: 'A published serverVersion; default the current one.' })),
    onError: Type.Optional(OnErrorSchema),
  },
  { $id: 'DataImportRequest', description: 'The rows of a specification’s attachments, or of attachments of the project, written into a published version.' },
);

const Params = Type.Object({ applicationId: Uuid });
const OneParams = Type.Object({ applicationId: Uuid, dataImportId: Uuid });

/** The data-imports group: rows of documents written into a published version by a `data_import` job. */
export function dataImportRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { dataImports } = services;
  return async (app) => {
    const common = { tags: ['data-imports'], security: MANAGEMENT_SECURITY };
    app.post(
      '/applications/:applicationId/data-imports',
      {
        schema: {
          ...common,
          operationId: 'createDataImport',
          summary: 'Import the rows of documents (SQL COPY/INSERT, CSV, JSON/NDJSON) into a published version: a data_import job',
          description:
            'Source keys become record ids through a key map kept for the import, so foreign keys land on the right records; field rules of the write path apply (types, enums, required), access rules do not. An import raises no realtime or trigger event per row.',
          params: Params,
          body: CreateBody,
          response: { 202: DataImportQueuedSchema, ...problemResponses(404, 409, 422) },
        },
      },
      async (request, reply) => {
        reply.status(202);
        return dataImports.create(request.principal.customerId, request.params.applicationId, request.body);
      },
    );
    app.get(
      '/applications/:applicationId/data-imports/:dataImportId',
      {
        schema: {
          ...common,
          operationId: 'getDataImport',
          summary: 'A data import: its status and report (rows per model, the first 100 rejected rows)',
          params: OneParams,
          response: { 200: DataImportSchema, ...problemResponses(404) },
        },
      },
      async (request) => dataImports.get(request.principal.customerId, request.params.applicationId, request.params.dataImportId),
    );
  };
}
