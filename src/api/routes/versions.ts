import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/index.ts';
import { AppDefinitionSchema } from '../../definition/schema.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { DateTime, ListEnvelope, PageQuery, problemResponses, Uuid } from '../schemas.ts';
import { ActorSchema, ApplicationSchema } from './application-schemas.ts';
import { ifMatchOf } from '../if-match.ts';

const ServerVersion = Type.String({ pattern: '^\\d+\\.\\d+\\.\\d+$', description: 'A semver major.minor.patch' });

export const VersionSchema = Type.Object({
  id: Uuid,
  applicationId: Uuid,
  serverVersion: Type.String(),
  scode: AppDefinitionSchema,
  createdAt: DateTime,
  updatedAt: DateTime,
  createdBy: ActorSchema,
});

const ChangeSchema = Type.Object({
  kind: Type.String(),
  path: Type.String(),
  summary: Type.String(),
});

/** Version history (spec endpoint 5) with read, diff and restore. */
export function versionRoutes(services: Services): FastifyPluginAsyncTypebox {
  return async (app) => {
    const common = { tags: ['applications'], security: MANAGEMENT_SECURITY };
    const base = '/applications/:applicationId/versions';

    app.get(
      base,
      {
        schema: {
          ...common,
          operationId: 'listVersions',
          summary: "The application's versions, newest first",
          params: Type.Object({ applicationId: Uuid }),
          querystring: PageQuery,
          response: { 200: ListEnvelope(VersionSchema), ...problemResponses(404) },
        },
      },
      async (request) => {
        const { limit, offset } = request.query;
        const page = await services.versions.list(request.principal.customerId, request.params.applicationId, limit, offset);
        return { items: page.items, metadata: { total: page.total } };
      },
    );

    app.get(
      `${base}/:serverVersion`,
      {
        schema: {
          ...common,
          operationId: 'getVersion',
          summary: 'One version of the application',
          params: Type.Object({ applicationId: Uuid, serverVersion: ServerVersion }),
          response: { 200: VersionSchema, ...problemResponses(404) },
        },
      },
      async (request) => services.versions.get(request.principal.customerId, request.params.applicationId, request.params.serverVersion),
    );

    app.get(
      `${base}/:from/diff/:to`,
      {
        schema: {
          ...common,
          operationId: 'diffVersions',
          summary: 'What changed from one version to another',
          params: Type.Object({ applicationId: Uuid, from: ServerVersion, to: ServerVersion }),
          response: { 200: Type.Object({ from: Type.String(), to: Type.String(), changes: Type.Array(ChangeSchema) }), ...problemResponses(404) },
        },
      },
      async (request) =>
        services.versions.diff(request.principal.customerId, request.params.applicationId, request.params.from, request.params.to),
    );

    app.post(
      `${base}/:serverVersion/restore`,
      {
        schema: {
          ...common,
          operationId: 'restoreVersion',
          summary: 'Save a new version whose definition equals an older one',
          params: Type.Object({ applicationId: Uuid, serverVersion: ServerVersion }),
          response: { 200: ApplicationSchema, ...problemResponses(404, 409, 412) },
        },
      },
      async (request) =>
        services.versions.restore(request.principal.customerId, request.params.applicationId, request.params.serverVersion, {
          ifMatch: ifMatchOf(request),
        }),
    );
  };
}
