import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/index.ts';
import { viewOf, type OwnerKind, type ValueKind } from '../../services/configuration.ts';
import { MAX_VALUE_BYTES, NAME_PATTERN } from '../../secrets/names.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { DateTime, ListEnvelope, PageQuery, problemResponses, Uuid } from '../schemas.ts';

const ActorSchema = Type.Object({ type: Type.Union([Type.Literal('apiClient'), Type.Literal('builder')]), id: Type.String() });

export const VariableSchema = Type.Object(
  { name: Type.String(), value: Type.String(), updatedAt: DateTime, updatedBy: ActorSchema },
  { $id: 'Variable', description: 'A plain configuration value, `env.NAME` in expressions.' },
);

export const SecretSchema = Type.Object(
  { name: Type.String(), version: Type.Integer({ description: 'Counts the writes of this secret.' }), createdAt: DateTime, updatedAt: DateTime, updatedBy: ActorSchema },
  { $id: 'Secret', description: 'An encrypted value, `secrets.NAME` in effect bindParams. Its value is never returned.' },
);

const Name = Type.String({ pattern: NAME_PATTERN, description: 'Capital letters, digits and underscores, starting with a letter; at most 64.' });
const ValueBody = Type.Object({ value: Type.String({ maxLength: MAX_VALUE_BYTES, description: 'At most 64 KiB (UTF-8).' }) });

const KINDS: { kind: ValueKind; segment: string; one: string; many: string; schema: typeof VariableSchema | typeof SecretSchema }[] = [
  { kind: 'variable', segment: 'variables', one: 'Variable', many: 'Variables', schema: VariableSchema },
  { kind: 'secret', segment: 'secrets', one: 'Secret', many: 'Secrets', schema: SecretSchema },
];

/** Secret writes need an admin; variable writes an editor; reads a viewer (DESIGN §10). */
const writeRole = (kind: ValueKind) => (kind === 'secret' ? { config: { requiredRole: 'admin' as const } } : {});

function configurationRoutes(services: Services, ownerKind: OwnerKind): FastifyPluginAsyncTypebox {
  const ownerParam = ownerKind === 'application' ? 'applicationId' : 'projectId';
  const base = ownerKind === 'application' ? '/applications/:applicationId' : '/projects/:projectId';
  const Owner = ownerKind === 'application' ? 'Application' : 'Project';
  return async (app) => {
    const common = { tags: ['secrets-configuration'], security: MANAGEMENT_SECURITY };
    const OwnerParams = Type.Object({ [ownerParam]: Uuid });
    const NameParams = Type.Object({ [ownerParam]: Uuid, name: Name });
    const ownerOf = (params: Record<string, string>) => ({ kind: ownerKind, id: params[ownerParam] });

    for (const { kind, segment, one, many, schema } of KINDS) {
      app.get(
        `${base}/${segment}`,
        {
          schema: {
            ...common,
            operationId: `list${Owner}${many}`,
            summary: `List the ${ownerKind}'s ${segment}`,
            params: OwnerParams,
            querystring: PageQuery,
            response: { 200: ListEnvelope(schema), ...problemResponses(404) },
          },
        },
        async (request) => {
          const page = await services.configuration.list(request.principal.customerId, ownerOf(request.params), kind, request.query.limit, request.query.offset);
          return { items: page.items.map((row) => viewOf(kind, row)), metadata: { total: page.total } };
        },
      );

      app.get(
        `${base}/${segment}/:name`,
        {
          schema: { ...common, operationId: `get${Owner}${one}`, summary: `Get one ${kind} of the ${ownerKind}`, params: NameParams, response: { 200: schema, ...problemResponses(404) } },
        },
        async (request) => viewOf(kind, await services.configuration.get(request.principal.customerId, ownerOf(request.params), kind, request.params.name)),
      );

      app.put(
        `${base}/${segment}/:name`,
        {
          ...writeRole(kind),
          schema: {
            ...common,
            operationId: `set${Owner}${one}`,
            summary: `Create (201) or replace (200) a ${kind} of the ${ownerKind}`,
            params: NameParams,
            body: ValueBody,
            response: { 200: schema, 201: schema, ...problemResponses(403, 404, 409) },
          },
        },
        async (request, reply) => {
          const { principal } = request;
          const { created, row } = await services.configuration.put(principal.customerId, ownerOf(request.params), kind, request.params.name, request.body.value, principal.actor);
          reply.status(created ? 201 : 200);
          return viewOf(kind, row);
        },
      );

      app.delete(
        `${base}/${segment}/:name`,
        {
          ...writeRole(kind),
          schema: { ...common, operationId: `delete${Owner}${one}`, summary: `Delete a ${kind} of the ${ownerKind}`, params: NameParams, response: { 204: Type.Null(), ...problemResponses(403, 404) } },
        },
        async (request, reply) => {
          await services.configuration.delete(request.principal.customerId, ownerOf(request.params), kind, request.params.name);
          return reply.status(204).send(null);
        },
      );
    }
  };
}

/** Variables and secrets of an application (DESIGN §11), under {base_url}. */
export const applicationConfigurationRoutes = (services: Services) => configurationRoutes(services, 'application');

/** Variables and secrets of a project, inherited by its applications, under {projects_url}. */
export const projectConfigurationRoutes = (services: Services) => configurationRoutes(services, 'project');
