// `POST {app api}/files` takes its body as a stream (DESIGN §6, "Files"): the one app route whose
// body is not JSON. It is the app plugin's own route, registered once more in a scope that adds
// a streaming parser for any content type and @fastify/multipart; JSON keeps the service's JSON
// parser, so an app whose own model is called `files` still creates its records there.
import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { badRequest, Problem } from '../../errors.ts';
import type { AppUploadSource } from '../../files/app-files.ts';

/** The path, below the version prefix, that takes uploads. */
export const UPLOAD_PATH = '/files';

/** The body of an upload: its one file is handed over as a stream, never buffered. */
export interface UploadBody {
  readonly kind: 'upload';
  /** Hands the request's file (the raw body, or the multipart part named `file`) to `store`, then reads the request to its end. */
  receive<T>(store: (source: AppUploadSource) => Promise<T>): Promise<T>;
}

export function isUploadBody(body: unknown): body is UploadBody {
  return typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind === 'upload';
}

function declaredLength(request: FastifyRequest): number | undefined {
  const value = Number(request.headers['content-length']);
  return request.headers['content-length'] !== undefined && Number.isSafeInteger(value) ? value : undefined;
}

function uploadBody(request: FastifyRequest): UploadBody {
  return {
    kind: 'upload',
    async receive<T>(store: (source: AppUploadSource) => Promise<T>): Promise<T> {
      if (!request.isMultipart()) {
        const stream = request.body instanceof Readable ? request.body : request.raw;
        const contentType = request.headers['content-type'];
        return store({ stream, contentType, ...(declaredLength(request) !== undefined ? { declaredLength: declaredLength(request) } : {}) });
      }
      let stored: { value: T } | undefined;
      for await (const part of request.parts()) {
        if (part.type === 'field') continue;
        if (part.fieldname !== 'file' || stored) throw badRequest('Send exactly one file part, named "file".', [{ path: `/${part.fieldname}`, message: 'unexpected file part' }]);
        stored = { value: await store({ stream: part.file, contentType: part.mimetype, filename: part.filename }) };
      }
      if (!stored) throw badRequest('The form has no file part named "file".', [{ path: '/file', message: 'is required' }]);
      return stored.value;
    },
  };
}

/**
 * Registers `route` (the app plugin's route, answering any path) once more at
 * `{appsPath}/:applicationId/api/:version/files` for POST, with streamed bodies.
 */
export async function registerUploadRoute(fastify: FastifyInstance, route: RouteOptions, appsPath: string): Promise<void> {
  await fastify.register(async (uploads) => {
    // Any other content type: the request stream itself, read by the handler (or dropped).
    uploads.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    await uploads.register(multipart, { limits: { fileSize: Infinity, files: 1, fields: 10, fieldSize: 8 * 1024, parts: 12 } });
    uploads.addHook('preHandler', async (request) => {
      // A JSON body was parsed as JSON: a record for a model called `files`, or a refused upload.
      if (request.isMultipart() || request.body instanceof Readable) request.body = uploadBody(request);
    });
    // A refused upload (401, 413, …): the rest of the body is read and dropped, so the client gets the answer, not a reset.
    uploads.addHook('onError', async (request) => {
      request.raw.unpipe();
      request.raw.resume();
    });
    uploads.route({ ...route, method: 'POST', url: `${appsPath}/:applicationId/api/:version${UPLOAD_PATH}` });
  });
}

/** The answer to a JSON body sent to the files route. */
export function jsonUploadRefused(): Problem {
  return new Problem(415, 'Upload the file as multipart/form-data (a part named "file") or as the raw body with its own content type; a JSON file goes as multipart or application/octet-stream.', [
    { path: '/headers/content-type', message: 'application/json is read as a record, not as a file' },
  ]);
}
