import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../services/index.ts';
import { roleAtLeast } from '../../access/roles.ts';
import { badRequest, forbidden } from '../../errors.ts';
import type { Principal } from '../../services/tokens.ts';
import { fileView, refuseReserved, type FileScope, type StoredFile } from '../../files/service.ts';
import { sendFile } from '../../files/serve.ts';
import { SIGNED_URL_DEFAULT_SECONDS, SIGNED_URL_MAX_SECONDS } from '../../files/signing.ts';
import { sweepOrphans } from '../../files/sweeper.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { requestOrigin } from '../served-urls.ts';
import { DateTime, ListEnvelope, PageQuery, problemResponses, Uuid } from '../schemas.ts';

export const FileSchema = Type.Object(
  {
    id: Uuid,
    path: Type.String(),
    size: Type.Integer(),
    contentType: Type.String(),
    sha256: Type.String(),
    builderId: Type.Union([Uuid, Type.Null()]),
    projectId: Type.Union([Uuid, Type.Null()], { description: 'The project the file belongs to (an attachment, an application upload, or stored with ?projectId=); null: none.' }),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'StoredFile' },
);

const FileParams = Type.Object({ fileId: Uuid });
const Bytes = Type.String({ description: 'The file bytes.', contentMediaType: 'application/octet-stream' });

/** The upload's body, by media type: documented here, read by the route as a stream (not validated: api/validation.ts). */
const UploadBody = {
  content: {
    '*/*': { schema: { ...Bytes, description: 'The file bytes, of any media type (stored as the file\'s contentType); name the file with ?path=.' } },
    'multipart/form-data': {
      schema: {
        type: 'object',
        description: 'A `path` field (or ?path=), then one file part named `file`; its media type is stored as the file\'s contentType.',
        properties: { path: { type: 'string', minLength: 1, maxLength: 1024 }, file: Bytes },
        required: ['file'],
      },
    },
  },
};

/**
 * Builders see their own files; admins, owners and API clients every file of the customer
 * (docs/security.md); a builder limited to some projects only theirs and its own of no project.
 */
export function fileScope(principal: Principal): FileScope {
  return {
    customerId: principal.customerId,
    builderId: principal.builderId,
    seesAll: principal.builderId === null || roleAtLeast(principal.role, 'admin'),
    projectIds: principal.projectIds,
  };
}

/** Reads and drops what is left of a refused upload, so the client gets the answer instead of a reset. */
function discardBody(request: FastifyRequest): void {
  request.raw.unpipe();
  request.raw.resume();
}

function declaredLength(request: FastifyRequest): number | undefined {
  const header = request.headers['content-length'];
  const value = header === undefined ? NaN : Number(header);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** The storage group (DESIGN §12): customers' files, streamed in and out. */
export function storageRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { files } = services;
  return async (app) => {
    const common = { tags: ['storage'], security: MANAGEMENT_SECURITY };

    // Temp files and blobs without a row that a crash left are swept at start and then periodically.
    let sweeper: NodeJS.Timeout | null = null;
    const sweep = () =>
      sweepOrphans(services.db, files.driver, files.config.sweepAgeSeconds * 1000).catch((error: unknown) => app.log.error({ err: error }, 'storage sweep failed'));
    app.addHook('onReady', async () => {
      void sweep();
      sweeper = setInterval(sweep, Math.max(60, files.config.sweepAgeSeconds) * 1000).unref();
    });
    app.addHook('onClose', async () => {
      if (sweeper) clearInterval(sweeper);
    });

    // Uploads take any body as a stream (JSON too: it is a file here), multipart through @fastify/multipart.
    await app.register(async (upload) => {
      upload.removeAllContentTypeParsers();
      upload.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
      await upload.register(multipart, { limits: { fileSize: Infinity, files: 1, fields: 10, fieldSize: 8 * 1024, parts: 12 } });
      upload.withTypeProvider<TypeBoxTypeProvider>().post(
        '/storage/files',
        {
          schema: {
            ...common,
            operationId: 'uploadFile',
            summary: 'Upload a file (raw body with ?path=, or multipart/form-data with a path field and a file part); streamed',
            querystring: Type.Object({
              path: Type.Optional(
                Type.String({
                  minLength: 1,
                  maxLength: 1024,
                  description:
                    'Where the file is stored: 1–1024 characters, "/"-separated; no empty, "." or ".." segment, no control characters. ' +
                    'Required with a raw body (400 naming /path without it); a multipart/form-data body may name it in its `path` field instead.',
                }),
              ),
              overwrite: Type.Boolean({ default: false }),
              builderId: Type.Optional(Uuid),
              projectId: Type.Optional(Uuid),
            }),
            description:
              'Paths under `attachments/` and `apps/` are refused (403): project attachments and applications\' uploads are written only through their own routes. ' +
              'With `projectId` the file belongs to that project: builders limited to other projects do not see it.',
            body: UploadBody,
            response: { 200: FileSchema, 201: FileSchema, ...problemResponses(403, 404, 409, 413) },
          },
        },
        async (request, reply) => {
          const { principal } = request;
          if (principal.builderId !== null && request.query.builderId !== undefined && request.query.builderId !== principal.builderId) {
            throw forbidden('A builder token stores files as its own builder; only an API client may name another builderId.');
          }
          const scope = fileScope(principal);
          const options = {
            overwrite: request.query.overwrite,
            builderId: principal.builderId ?? request.query.builderId ?? null,
            ...(request.query.projectId !== undefined ? { projectId: request.query.projectId } : {}),
          };
          let stored: { file: StoredFile; replaced: boolean } | undefined;
          try {
            if (request.isMultipart()) {
              let path = request.query.path;
              for await (const part of request.parts()) {
                if (part.type === 'field') {
                  if (part.fieldname === 'path') path = String(part.value);
                  continue;
                }
                if (part.fieldname !== 'file' || stored) throw badRequest('Send exactly one file part, named "file".', [{ path: `/${part.fieldname}`, message: 'unexpected file part' }]);
                if (path === undefined) throw badRequest('Name the file: a "path" field before the file part, or ?path=.', [{ path: '/path', message: 'is required' }]);
                refuseReserved(path);
                stored = await files.upload(scope, { ...options, path, contentType: part.mimetype }, part.file);
              }
              if (!stored) throw badRequest('The form has no file part named "file".', [{ path: '/file', message: 'is required' }]);
            } else {
              if (request.query.path === undefined) throw badRequest('Name the file with ?path=.', [{ path: '/path', message: 'is required' }]);
              refuseReserved(request.query.path);
              const source = request.body instanceof Readable ? request.body : request.raw;
              stored = await files.upload(
                scope,
                { ...options, path: request.query.path, contentType: request.headers['content-type'], declaredLength: declaredLength(request) },
                source,
              );
            }
          } catch (error) {
            discardBody(request);
            throw error;
          }
          return reply.status(stored.replaced ? 200 : 201).send(stored.file);
        },
      );
    });

    app.get(
      '/storage/files',
      {
        schema: {
          ...common,
          operationId: 'listFiles',
          summary: 'List files (by path), optionally under a prefix, of one builder or of one project',
          querystring: Type.Composite([
            PageQuery,
            Type.Object({ prefix: Type.Optional(Type.String({ maxLength: 1024 })), builderId: Type.Optional(Uuid), projectId: Type.Optional(Uuid) }),
          ]),
          response: { 200: ListEnvelope(FileSchema), ...problemResponses() },
        },
      },
      async (request) => {
        const page = await files.list(fileScope(request.principal), request.query);
        return { items: page.items, metadata: { total: page.total } };
      },
    );

    app.get(
      '/storage/files/:fileId',
      { schema: { ...common, operationId: 'getFile', summary: "A file's metadata", params: FileParams, response: { 200: FileSchema, ...problemResponses(404) } } },
      async (request) => fileView(await files.row(fileScope(request.principal), request.params.fileId)),
    );

    app.get(
      '/storage/files/:fileId/content',
      {
        schema: {
          ...common,
          operationId: 'getFileContent',
          summary: "A file's bytes: ETag, Last-Modified, Range (206/416), If-None-Match (304)",
          params: FileParams,
          response: { 200: Bytes, 206: Bytes, 304: Type.Null(), ...problemResponses(404, 416) },
        },
      },
      async (request, reply) => sendFile(request, reply, files, await files.row(fileScope(request.principal), request.params.fileId)),
    );

    app.delete(
      '/storage/files/:fileId',
      {
        schema: {
          ...common,
          operationId: 'deleteFile',
          summary: 'Delete a file',
          description: 'Files under `attachments/` and `apps/` are refused (403): they go with their attachment or application.',
          params: FileParams,
          response: { 204: Type.Null(), ...problemResponses(403, 404) },
        },
      },
      async (request, reply) => {
        const row = await files.row(fileScope(request.principal), request.params.fileId);
        refuseReserved(row.path);
        await files.removeRow(row);
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/storage/files/:fileId/signed-url',
      {
        schema: {
          ...common,
          operationId: 'createSignedFileUrl',
          summary: 'A URL anyone may GET the bytes from until it expires (invalid once the file is replaced or deleted)',
          params: FileParams,
          // A JSON object (the document marks the body required); `expiresIn` optional with its default: `{}` is the default duration.
          body: Type.Object({ expiresIn: Type.Optional(Type.Integer({ minimum: 1, maximum: SIGNED_URL_MAX_SECONDS, default: SIGNED_URL_DEFAULT_SECONDS, description: 'Seconds the URL works.' })) }),
          response: { 200: Type.Object({ url: Type.String(), expiresAt: DateTime }), ...problemResponses(404) },
        },
      },
      async (request) => {
        const expiresIn = request.body.expiresIn ?? SIGNED_URL_DEFAULT_SECONDS;
        const signed = await files.signedPath(fileScope(request.principal), request.params.fileId, expiresIn, services.config.basePath);
        return { url: `${requestOrigin(request, services.config.publicUrl)}${signed.path}`, expiresAt: signed.expiresAt };
      },
    );
  };
}

/** The signed download route: no credentials, the signature is the grant. Mounted outside the authenticated scope. */
export function signedFileRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { files } = services;
  return async (app) => {
    app.get(
      '/storage/signed/:fileId',
      {
        schema: {
          // Not in the management document: the URL is handed out whole by createSignedFileUrl, and
          // every documented operation requires the management credentials.
          hide: true,
          tags: ['storage'],
          security: [],
          operationId: 'getSignedFileContent',
          summary: "A file's bytes through a signed URL (Range, If-None-Match as for the content route)",
          params: FileParams,
          querystring: Type.Object({ expires: Type.Integer(), signature: Type.String({ maxLength: 128 }) }),
          response: { 200: Bytes, 206: Bytes, 304: Type.Null(), ...problemResponses(403, 404, 416) },
        },
      },
      async (request: FastifyRequest<{ Params: { fileId: string }; Querystring: { expires: number; signature: string } }>, reply: FastifyReply) =>
        sendFile(request, reply, files, await files.signedRow(request.params.fileId, request.query.expires, request.query.signature)),
    );
  };
}
