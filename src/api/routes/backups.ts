import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import type { Services } from '../../services/index.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { DateTime, ListEnvelope, PageQuery, problemResponses, Uuid } from '../schemas.ts';

export const BackupQueuedSchema = Type.Object({ id: Uuid, status: Type.Literal('queued'), jobId: Uuid }, { $id: 'BackupQueued' });

export const BackupSchema = Type.Object(
  {
    id: Uuid,
    applicationId: Uuid,
    status: Type.Union(['queued', 'running', 'succeeded', 'failed'].map((s) => Type.Literal(s))),
    jobId: Type.Optional(Uuid),
    createdAt: DateTime,
    completedAt: Type.Optional(DateTime),
    bytes: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: "The archive's size (once written)." }),
    sha256: Type.Union([Type.String(), Type.Null()], { description: "The archive's SHA-256 (hex)." }),
    verified: Type.Boolean({ description: 'True once the archive was restored into a scratch schema and every table matched its rows and checksum.' }),
    models: Type.Optional(
      Type.Record(Type.String(), Type.Object({ rows: Type.Integer({ minimum: 0 }), checksum: Type.String() }), { description: 'Per table of the application’s data: rows and checksum at backup time.' }),
    ),
    errorMessage: Type.Optional(Type.String()),
  },
  { $id: 'Backup' },
);

const RestoreBody = Type.Object({ backupId: Uuid }, { $id: 'RestoreRequest', description: 'The backup of this application to restore over it.' });
const Params = Type.Object({ applicationId: Uuid });
const OneParams = Type.Object({ applicationId: Uuid, backupId: Uuid });
const Archive = Type.String({ description: 'The backup archive (zip).', contentMediaType: 'application/zip' });

/** The backups group (backups/): one application's archives, their content, and restores. */
export function backupRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { backups } = services;
  return async (app) => {
    const common = { tags: ['backups'], security: MANAGEMENT_SECURITY };
    app.post(
      '/applications/:applicationId/backups',
      {
        config: { requiredRole: 'admin' },
        schema: {
          ...common,
          operationId: 'createBackup',
          summary: 'Back up the application: a backup job writes one zip and verifies it by a restore drill',
          description:
            'The archive holds the definition and every version, each table’s rows with their ids, the files its records refer to, variables, sealed secrets, and end users with their password hashes and factors. The job restores it into a scratch schema and compares rows and checksums per table before `verified` is true.',
          params: Params,
          response: { 202: BackupQueuedSchema, ...problemResponses(404) },
        },
      },
      async (request, reply) => {
        reply.status(202);
        return backups.create(request.principal.customerId, request.params.applicationId);
      },
    );
    app.get(
      '/applications/:applicationId/backups',
      {
        schema: { ...common, operationId: 'listBackups', summary: "The application's backups, newest first", params: Params, querystring: PageQuery, response: { 200: ListEnvelope(BackupSchema), ...problemResponses(404) } },
      },
      async (request) => backups.list(request.principal.customerId, request.params.applicationId, request.query),
    );
    app.get(
      '/applications/:applicationId/backups/:backupId',
      { schema: { ...common, operationId: 'getBackup', summary: 'A backup: status, size, SHA-256, verified', params: OneParams, response: { 200: BackupSchema, ...problemResponses(404) } } },
      async (request) => backups.get(request.principal.customerId, request.params.applicationId, request.params.backupId),
    );
    app.get(
      '/applications/:applicationId/backups/:backupId/content',
      {
        config: { requiredRole: 'admin' },
        schema: { ...common, operationId: 'getBackupContent', summary: "The backup's archive (zip), streamed", params: OneParams, response: { 200: Archive, ...problemResponses(404) } },
      },
      async (request, reply) => {
        const { stream, bytes, sha256 } = await backups.content(request.principal.customerId, request.params.applicationId, request.params.backupId);
        return sendArchive(reply, stream, request.params.backupId, bytes, sha256);
      },
    );
    app.delete(
      '/applications/:applicationId/backups/:backupId',
      {
        config: { requiredRole: 'admin' },
        schema: { ...common, operationId: 'deleteBackup', summary: 'Delete a backup and its archive', params: OneParams, response: { 204: Type.Null(), ...problemResponses(404) } },
      },
      async (request, reply) => {
        await backups.remove(request.principal.customerId, request.params.applicationId, request.params.backupId);
        return reply.status(204).send(null);
      },
    );
    app.post(
      '/applications/:applicationId/restore',
      {
        config: { requiredRole: 'admin' },
        schema: {
          ...common,
          operationId: 'restoreApplication',
          summary: 'Restore a backup over the application: a restore job, one transaction',
          description:
            'The archive is checked first: a truncated, altered (SHA-256 mismatch), unknown-format archive or one of another application → 422 naming the part, nothing changed. The job writes the definition, versions, rows, files, variables, secrets and end users back in one transaction (until it commits the application serves as before); the served versions are served again, and every end user is signed out.',
          params: Params,
          body: RestoreBody,
          response: { 202: BackupQueuedSchema, ...problemResponses(404, 422) },
        },
      },
      async (request, reply) => {
        reply.status(202);
        return backups.restore(request.principal.customerId, request.params.applicationId, request.body.backupId);
      },
    );
  };
}

/** Streams an archive (the route's schema documents it as bytes; the body is a stream, not a string). */
function sendArchive(reply: FastifyReply, stream: Readable, backupId: string, bytes: number, sha256: string): FastifyReply {
  return reply
    .header('content-type', 'application/zip')
    .header('content-length', String(bytes))
    .header('etag', `"${sha256}"`)
    .header('content-disposition', `attachment; filename="backup-${backupId}.zip"`)
    .send(stream);
}
