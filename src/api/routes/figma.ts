import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/index.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { DateTime, ListEnvelope, PageQuery, problemResponses, Uuid } from '../schemas.ts';

const FrameSchema = Type.Object({
  nodeId: Type.String({ description: 'The Figma node id of the top-level frame (`12:34`).' }),
  name: Type.String(),
  page: Type.String({ description: 'The name of the page (canvas) the frame is on.' }),
  width: Type.Number(),
  height: Type.Number(),
});

export const FigmaImportSchema = Type.Object(
  {
    id: Uuid,
    projectId: Uuid,
    fileKey: Type.Union([Type.String(), Type.Null()], { description: 'The Figma file key; null for an import from an uploaded attachment.' }),
    name: Type.String(),
    version: Type.Union([Type.String(), Type.Null()]),
    lastModified: Type.Union([DateTime, Type.Null()]),
    frames: Type.Array(FrameSchema),
    createdAt: DateTime,
  },
  { $id: 'FigmaImport' },
);

const ImportBody = Type.Object(
  {
    fileKey: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,128}$', description: 'The key of a Figma file (the part of its URL after `/file/` or `/design/`).' })),
    tokenSecret: Type.Optional(Type.String({ pattern: '^[A-Z][A-Z0-9_]{0,63}$', description: 'The name of the project secret holding a Figma personal access token.' })),
    attachmentId: Type.Optional(Uuid),
  },
  { additionalProperties: false, description: 'Either `fileKey` and `tokenSecret` (read from the Figma API), or `attachmentId` of an uploaded Figma file JSON.' },
);

const ZipResponse = {
  description: 'The generated site: `index.html` linking one page per frame, the pages, `styles.css`, `assets/`.',
  content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } },
};

const ProjectParams = Type.Object({ projectId: Uuid });
const ImportParams = Type.Object({ projectId: Uuid, importId: Uuid });
const CodeParams = Type.Object({ projectId: Uuid, importId: Uuid, jobId: Uuid });

/** The figma-integration group (DESIGN §14): imports, and code generated from their frames. */
export function figmaRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { figma } = services;
  return async (app) => {
    const common = { tags: ['figma-integration'], security: MANAGEMENT_SECURITY };
    const base = '/projects/:projectId/figma/imports';

    app.post(
      base,
      {
        schema: {
          ...common,
          operationId: 'createFigmaImport',
          summary: 'Import a Figma file: from the Figma API by file key (the token from a project secret) or from an uploaded attachment; 422 with Figma’s message when it refuses',
          params: ProjectParams,
          body: ImportBody,
          response: { 201: FigmaImportSchema, ...problemResponses(404, 422) },
        },
      },
      async (request, reply) => {
        const created = await figma.create(request.principal.customerId, request.params.projectId, request.body);
        return reply.status(201).send(created);
      },
    );

    app.get(
      base,
      {
        schema: {
          ...common,
          operationId: 'listFigmaImports',
          summary: "List a project's Figma imports",
          params: ProjectParams,
          querystring: PageQuery,
          response: { 200: ListEnvelope(FigmaImportSchema), ...problemResponses(404) },
        },
      },
      async (request) => {
        const page = await figma.list(request.principal.customerId, request.params.projectId, request.query.limit, request.query.offset);
        return { items: page.items, metadata: { total: page.total } };
      },
    );

    app.get(
      `${base}/:importId`,
      { schema: { ...common, operationId: 'getFigmaImport', summary: 'A Figma import with its frames', params: ImportParams, response: { 200: FigmaImportSchema, ...problemResponses(404) } } },
      async (request) => figma.get(request.principal.customerId, request.params.projectId, request.params.importId),
    );

    app.delete(
      `${base}/:importId`,
      {
        schema: { ...common, operationId: 'deleteFigmaImport', summary: 'Delete a Figma import and the code generated from it', params: ImportParams, response: { 204: Type.Null(), ...problemResponses(404) } },
      },
      async (request, reply) => {
        await figma.delete(request.principal.customerId, request.params.projectId, request.params.importId);
        return reply.status(204).send(null);
      },
    );

    app.post(
      `${base}/:importId/code`,
      {
        schema: {
          ...common,
          operationId: 'generateFigmaCode',
          summary: 'Generate static HTML/CSS from frames (all by default): a figma_code_generation job, in the application’s status when applicationId is given',
          params: ImportParams,
          body: Type.Optional(
            Type.Object(
              {
                frameIds: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 1000, uniqueItems: true })),
                applicationId: Type.Optional(Uuid),
              },
              { additionalProperties: false },
            ),
          ),
          response: { 202: Type.Object({ jobId: Uuid }, { title: 'FigmaCodeQueued' }), ...problemResponses(404, 422) },
        },
      },
      async (request, reply) => {
        const queued = await figma.requestCode(request.principal.customerId, request.params.projectId, request.params.importId, request.body ?? {});
        return reply.status(202).send(queued);
      },
    );

    app.get(
      `${base}/:importId/code/:jobId`,
      {
        schema: {
          ...common,
          operationId: 'getFigmaCode',
          summary: 'Download the generated site (zip) of a finished job; 409 while it runs, 422 with its error when it failed',
          params: CodeParams,
          response: { 200: ZipResponse, ...problemResponses(404, 409, 422) },
        },
      },
      async (request, reply) => {
        const { projectId, importId, jobId } = request.params;
        const result = await figma.codeResult(request.principal.customerId, projectId, importId, jobId);
        return reply
          .status(200)
          .type('application/zip')
          .header('etag', `"${result.sha256}"`)
          .header('content-disposition', `attachment; filename="${result.filename}"`)
          .send(Buffer.from(result.zip.buffer, result.zip.byteOffset, result.zip.byteLength));
      },
    );
  };
}
