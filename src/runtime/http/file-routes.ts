// The files of a generated app (DESIGN §6, "Files"): `POST /files` stores an upload in the owning
// customer's storage (files/app-files.ts: the one FileService, streamed, limited) and answers its
// key and URL; `GET /files/{key}` streams it (files/serve.ts) to a caller who may read a record
// referencing it (data/file-access.ts, one statement), else 404.
import { badRequest, notFound, unauthorized } from '../../errors.ts';
import type { AppFiles } from '../../files/app-files.ts';
import { authOf } from '../caller.ts';
import type { CompiledApp } from '../compiled-app.ts';
import { fileReadCondition } from '../data/file-access.ts';
import type { RouteSource } from './router.ts';
import type { AppRequest, AppRoute } from './types.ts';
import { isUploadBody, jsonUploadRefused, UPLOAD_PATH } from './upload-route.ts';

/** The app's own model or triggers answer under `/files`: they keep it, and the app has no file routes. */
export function filesRouteTaken(app: CompiledApp): boolean {
  return app.modelsByResource.has(UPLOAD_PATH.slice(1)) || app.definition.triggers.some((t) => t.trigger.type === 'http' && /^\/files(\/|$)/.test(t.trigger.path));
}

async function upload(appFiles: AppFiles, request: AppRequest) {
  const { caller } = request;
  if (caller.kind === 'anonymous' || caller.kind === 'system') {
    throw unauthorized('Sign in to upload files: send the token of POST …/auth/login as Authorization: Bearer <token>.');
  }
  if (!isUploadBody(request.body)) {
    if (request.body !== undefined && request.body !== null) throw jsonUploadRefused();
    throw badRequest('Send the file as the request body (with its Content-Type) or as multipart/form-data with a part named "file".', [{ path: '/file', message: 'is required' }]);
  }
  const uploadedBy = caller.kind === 'user' ? String(caller.user.id) : null;
  const stored = await request.body.receive((source) =>
    appFiles.upload({ applicationId: request.app.applicationId, customerId: request.customerId! }, uploadedBy, source),
  );
  return { status: 201, body: { key: stored.key, url: `${request.filesUrl}${stored.key}`, contentType: stored.contentType, size: stored.size } };
}

async function download(appFiles: AppFiles, request: AppRequest) {
  const { app, caller } = request;
  const ctx = { auth: authOf(caller), operation: 'read' as const, now: new Date(), env: request.values?.env ?? {} };
  const row = await appFiles.readableRow(app.applicationId, request.params.key, fileReadCondition(app, caller, ctx));
  // Absent, or no record this caller may read refers to it: the same answer.
  if (!row) throw notFound(`No file ${request.params.key}.`, '/key');
  return { status: 200, file: { files: appFiles.files, row } };
}

export function fileRoutes(appFiles: AppFiles): RouteSource {
  return (app): AppRoute[] => {
    if (filesRouteTaken(app)) return [];
    return [
      { method: 'POST', path: UPLOAD_PATH, handler: (request) => upload(appFiles, request) },
      { method: 'GET', path: `${UPLOAD_PATH}/:key`, handler: (request) => download(appFiles, request) },
    ];
  };
}
