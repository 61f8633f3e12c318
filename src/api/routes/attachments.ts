import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { Services } from '../../services/index.ts';
import { badRequest } from '../../errors.ts';
import { sendFile } from '../../files/serve.ts';
import { ATTACHMENT_KINDS } from '../../specifications/extractors/types.ts';
import type { Attachment } from '../../services/attachments.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { DateTime, ListEnvelope, PageQuery, problemResponses, Uuid } from '../schemas.ts';
import { ActorSchema } from './application-schemas.ts';

export const AttachmentSchema = Type.Object(
  {
    id: Uuid,
    projectId: Uuid,
    name: Type.String(),
    contentType: Type.String(),
    size: Type.Integer(),
    sha256: Type.String(),
    kind: Type.Union(ATTACHMENT_KINDS.map((k) => Type.Literal(k)), { description: 'Detected from the content.' }),
    createdAt: DateTime,
    createdBy: ActorSchema,
  },
  { $id: 'Attachment' },
);

const ProjectParams = Type.Object({ projectId: Uuid });
const AttachmentParams = Type.Object({ projectId: Uuid, attachmentId: Uuid });
const Bytes = Type.String({ description: 'The attachment bytes.', contentMediaType: 'application/octet-stream' });
/** A name when the client gives none (a raw body without ?name=). */
const UNNAMED = 'attachment';

/** Types by the file name's extension, for a raw upload whose content-type says nothing about the file. */
const BY_EXTENSION: Record<string, string> = {
  sql: 'application/sql',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  csv: 'text/csv',
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  pdf: 'application/pdf',
};

/**
 * The declared type of a raw upload: `curl --data-binary @schema.sql` sends
 * `application/x-www-form-urlencoded`, which is never a document's type; then (and with no type) the
 * name's extension says it, else the content is sniffed when stored.
 */
export function declaredType(header: string | undefined, name: string | undefined): string | undefined {
  if (header && !/^application\/x-www-form-urlencoded\b/i.test(header)) return header;
  const extension = name?.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
  return BY_EXTENSION[extension];
}

function declaredLength(request: FastifyRequest): number | undefined {
  const value = Number(request.headers['content-length'] ?? NaN);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** The attachments group (DESIGN §13): a project's documents, stored through the storage layer (§12). */
export function attachmentRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { attachments } = services;
  return async (app) => {
    const common = { tags: ['attachments'], security: MANAGEMENT_SECURITY };
    const base = '/projects/:projectId/attachments';

    // Any body is the document as a stream (JSON too: it is a file here), multipart through @fastify/multipart.
    await app.register(async (upload) => {
      upload.removeAllContentTypeParsers();
      upload.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
      await upload.register(multipart, { limits: { fileSize: Infinity, files: 1, fields: 5, fieldSize: 1024, parts: 6 } });
      upload.withTypeProvider<TypeBoxTypeProvider>().post(
        base,
        {
          schema: {
            ...common,
            operationId: 'uploadAttachment',
            summary: 'Upload a document (raw body with ?name=, or multipart/form-data with a file part); at most 25 MiB; its kind is read from the content',
            params: ProjectParams,
            querystring: Type.Object({ name: Type.Optional(Type.String({ maxLength: 255, description: 'The file name, e.g. `petstore.yaml`.' })) }),
            response: { 201: AttachmentSchema, ...problemResponses(404, 413) },
          },
        },
        async (request, reply) => {
          const { customerId } = request.principal;
          const { projectId } = request.params;
          let stored: Attachment | undefined;
          try {
            if (request.isMultipart()) {
              let name = request.query.name;
              for await (const part of request.parts()) {
                if (part.type === 'field') {
                  if (part.fieldname === 'name') name = String(part.value);
                  continue;
                }
                if (part.fieldname !== 'file' || stored) throw badRequest('Send exactly one file part, named "file".', [{ path: `/${part.fieldname}`, message: 'unexpected file part' }]);
                stored = await attachments.upload(customerId, projectId, { name: name ?? (part.filename || UNNAMED), contentType: part.mimetype }, part.file);
              }
              if (!stored) throw badRequest('The form has no file part named "file".', [{ path: '/file', message: 'is required' }]);
            } else {
              const source = request.body instanceof Readable ? request.body : request.raw;
              stored = await attachments.upload(
                customerId,
                projectId,
                { name: request.query.name ?? UNNAMED, contentType: declaredType(request.headers['content-type'], request.query.name), declaredLength: declaredLength(request) },
                source,
              );
            }
          } catch (error) {
            // What is left of a refused body is read and dropped, so the client gets the answer.
            request.raw.unpipe();
            request.raw.resume();
            throw error;
          }
          return reply.status(201).send(stored);
        },
      );
    });

    app.get(
      base,
      {
        schema: {
          ...common,
          operationId: 'listAttachments',
          summary: "List a project's attachments",
          params: ProjectParams,
          querystring: PageQuery,
          response: { 200: ListEnvelope(AttachmentSchema), ...problemResponses(404) },
        },
      },
      async (request) => {
        const page = await attachments.list(request.principal.customerId, request.params.projectId, request.query.limit, request.query.offset);
        return { items: page.items, metadata: { total: page.total } };
      },
    );

    app.get(
      `${base}/:attachmentId`,
      { schema: { ...common, operationId: 'getAttachment', summary: 'An attachment', params: AttachmentParams, response: { 200: AttachmentSchema, ...problemResponses(404) } } },
      async (request) => attachments.get(request.principal.customerId, request.params.projectId, request.params.attachmentId),
    );

    app.get(
      `${base}/:attachmentId/content`,
      {
        schema: {
          ...common,
          operationId: 'getAttachmentContent',
          summary: "An attachment's bytes: ETag, Range (206/416), If-None-Match (304)",
          params: AttachmentParams,
          response: { 200: Bytes, 206: Bytes, 304: Type.Null(), ...problemResponses(404, 416) },
        },
      },
      async (request, reply) => {
        const { attachment, file } = await attachments.file(request.principal.customerId, request.params.projectId, request.params.attachmentId);
        // Served under the attachment's own name (the stored path names the project and id).
        return sendFile(request, reply, services.files, { ...file, path: attachment.name.replace(/[/\\]/g, '_') });
      },
    );

    app.delete(
      `${base}/:attachmentId`,
      { schema: { ...common, operationId: 'deleteAttachment', summary: 'Delete an attachment', params: AttachmentParams, response: { 204: Type.Null(), ...problemResponses(404) } } },
      async (request, reply) => {
        await attachments.delete(request.principal.customerId, request.params.projectId, request.params.attachmentId);
        return reply.status(204).send(null);
      },
    );
  };
}
