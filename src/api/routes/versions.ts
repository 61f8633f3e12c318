import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/index.ts';
import { AppDefinitionSchema } from '../../definition/schema.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { DateTime, ListEnvelope, PageQuery, problemResponses, Uuid } from '../schemas.ts';
import { ActorSchema, ApplicationSchema } from './application-schemas.ts';
import { ifMatchOf } from '../if-match.ts';
import { answerChange, MinimalEditResponse } from './application-edit.ts';
import { parseVersionFields, VERSION_PAGE_BYTES } from '../../services/applications/versions.ts';

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
          description:
            '`fields=serverVersion,createdAt` answers only those members (`id` always; unknown members → 400), so a client lists versions without their definitions. ' +
            `With definitions, a page stops before they pass ${VERSION_PAGE_BYTES} bytes (at least one version; \`metadata.total\` counts all).`,
          params: Type.Object({ applicationId: Uuid }),
          querystring: Type.Composite([PageQuery, Type.Object({ fields: Type.Optional(Type.String({ description: 'Comma-separated members of the version record' })) })]),
          response: { 200: ListEnvelope(Type.Partial(VersionSchema)), ...problemResponses(400, 404) },
        },
      },
      async (request) => {
        const { limit, offset } = request.query;
        const fields = parseVersionFields(request.query.fields);
        const page = await services.versions.list(request.principal.customerId, request.params.applicationId, limit, offset, fields);
        return { items: page.items, metadata: { total: page.total } };
      },
    );

    app.get(
      `${base}/:version`,
      {
        schema: {
          ...common,
          operationId: 'getVersion',
          summary: 'One version of the application, by its id or its serverVersion',
          params: Type.Object({ applicationId: Uuid, version: Type.Union([Uuid, ServerVersion]) }),
          response: { 200: VersionSchema, ...problemResponses(404) },
        },
      },
      async (request) => services.versions.get(request.principal.customerId, request.params.applicationId, request.params.version),
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
          response: { 200: ApplicationSchema, 204: MinimalEditResponse, ...problemResponses(404, 409, 412) },
        },
      },
      async (request, reply) => {
        const old = await services.versions.get(request.principal.customerId, request.params.applicationId, request.params.serverVersion);
        return answerChange(services, request, reply, () => structuredClone(old.scode), { ifMatch: ifMatchOf(request) });
      },
    );
  };
}
