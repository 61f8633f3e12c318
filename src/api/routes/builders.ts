import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/index.ts';
import { MAX_TOKEN_SECONDS, DEFAULT_TOKEN_SECONDS } from '../../services/builders.ts';
import { ROLES } from '../../access/roles.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { DateTime, ListEnvelope, PageQuery, problemResponses, Uuid } from '../schemas.ts';

const RoleSchema = Type.Union(ROLES.map((role) => Type.Literal(role)));
const ProjectIds = Type.Union([Type.Array(Uuid, { maxItems: 1000, uniqueItems: true }), Type.Null()], {
  description: 'The projects the builder may see; null: every project of the customer.',
});
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Email = Type.String({ format: 'email', maxLength: 320 });
const NullableDateTime = Type.Union([DateTime, Type.Null()]);

const BuilderSchema = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    email: Type.String(),
    role: RoleSchema,
    projectIds: ProjectIds,
    isActive: Type.Boolean(),
    createdAt: DateTime,
    updatedAt: DateTime,
    lastActiveAt: NullableDateTime,
  },
  { $id: 'Builder' },
);

const TokenSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  createdAt: DateTime,
  expiresAt: DateTime,
  lastUsedAt: NullableDateTime,
  revokedAt: NullableDateTime,
});

const BuilderParams = Type.Object({ builderId: Uuid });
const TokenParams = Type.Object({ builderId: Uuid, tokenId: Uuid });

/** Builders of the caller's customer and their tokens (DESIGN §10): owners only. */
export function builderRoutes(services: Services): FastifyPluginAsyncTypebox {
  return async (app) => {
    const common = { tags: ['builders'], security: MANAGEMENT_SECURITY };
    // Owners, and never a builder limited to some projects: it could lift its own limit.
    const config = { requiredRole: 'owner' as const, unscopedOnly: true };
    const builders = services.builders;

    // Who is calling, with what role and over which projects: what a client (the console) needs
    // to show or hide what the caller may change. Any role may ask about itself.
    app.get(
      '/builders/me',
      {
        config: { requiredRole: 'viewer' as const },
        schema: {
          ...common,
          operationId: 'getCaller',
          summary: 'The caller: its actor (API client or builder), role and project scope',
          response: {
            200: Type.Object(
              {
                actor: Type.Object({ type: Type.Union([Type.Literal('apiClient'), Type.Literal('builder')]), id: Uuid }),
                role: RoleSchema,
                projectIds: ProjectIds,
                isPlatformAdmin: Type.Boolean(),
              },
              { title: 'Caller' },
            ),
          },
        },
      },
      async (request) => {
        const { actor, role, projectIds, isPlatformAdmin } = request.principal;
        return { actor, role, projectIds, isPlatformAdmin };
      },
    );

    app.post(
      '/builders',
      {
        config,
        schema: {
          ...common,
          operationId: 'createBuilder',
          summary: 'Add a builder (email unique within the customer: 409)',
          body: Type.Object({ name: Name, email: Email, role: RoleSchema, projectIds: Type.Optional(ProjectIds), isActive: Type.Optional(Type.Boolean()) }),
          response: { 201: BuilderSchema, ...problemResponses(403, 404, 409) },
        },
      },
      async (request, reply) => {
        reply.status(201);
        return builders.create(request.principal.customerId, request.body);
      },
    );

    app.get(
      '/builders',
      {
        config,
        schema: { ...common, operationId: 'listBuilders', summary: 'List builders', querystring: PageQuery, response: { 200: ListEnvelope(BuilderSchema), ...problemResponses(403) } },
      },
      async (request) => {
        const page = await builders.list(request.principal.customerId, request.query.limit, request.query.offset);
        return { items: page.items, metadata: { total: page.total } };
      },
    );

    app.get(
      '/builders/:builderId',
      {
        config,
        schema: { ...common, operationId: 'getBuilder', summary: 'Get a builder', params: BuilderParams, response: { 200: BuilderSchema, ...problemResponses(403, 404) } },
      },
      async (request) => builders.get(request.principal.customerId, request.params.builderId),
    );

    app.patch(
      '/builders/:builderId',
      {
        config,
        schema: {
          ...common,
          operationId: 'updateBuilder',
          summary: 'Change a builder (deactivating one refuses its tokens from the next request on)',
          params: BuilderParams,
          body: Type.Object(
            { name: Type.Optional(Name), email: Type.Optional(Email), role: Type.Optional(RoleSchema), projectIds: Type.Optional(ProjectIds), isActive: Type.Optional(Type.Boolean()) },
            { minProperties: 1 },
          ),
          response: { 200: BuilderSchema, ...problemResponses(403, 404, 409) },
        },
      },
      async (request) => builders.update(request.principal.customerId, request.params.builderId, request.body),
    );

    app.delete(
      '/builders/:builderId',
      {
        config,
        schema: {
          ...common,
          operationId: 'deleteBuilder',
          summary: 'Delete a builder and its tokens (refused from the next request on); versions and files keep its id',
          params: BuilderParams,
          response: { 204: Type.Null(), ...problemResponses(403, 404) },
        },
      },
      async (request, reply) => {
        await builders.delete(request.principal.customerId, request.params.builderId);
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/builders/:builderId/tokens',
      {
        config,
        schema: {
          ...common,
          operationId: 'createBuilderToken',
          summary: 'Create a token for a builder; its secret (`token`) is shown once, only its SHA-256 hash is stored',
          params: BuilderParams,
          body: Type.Optional(
            Type.Object({
              name: Type.Optional(Name),
              expiresIn: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TOKEN_SECONDS, default: DEFAULT_TOKEN_SECONDS, description: 'Seconds until the token expires.' })),
            }),
          ),
          response: { 201: Type.Composite([TokenSchema, Type.Object({ token: Type.String() })]), ...problemResponses(403, 404) },
        },
      },
      async (request, reply) => {
        reply.status(201);
        return builders.createToken(request.principal.customerId, request.params.builderId, request.body ?? {});
      },
    );

    app.get(
      '/builders/:builderId/tokens',
      {
        config,
        schema: {
          ...common,
          operationId: 'listBuilderTokens',
          summary: "List a builder's tokens (never their secrets)",
          params: BuilderParams,
          querystring: PageQuery,
          response: { 200: ListEnvelope(TokenSchema), ...problemResponses(403, 404) },
        },
      },
      async (request) => {
        const page = await builders.listTokens(request.principal.customerId, request.params.builderId, request.query.limit, request.query.offset);
        return { items: page.items, metadata: { total: page.total } };
      },
    );

    app.delete(
      '/builders/:builderId/tokens/:tokenId',
      {
        config,
        schema: {
          ...common,
          operationId: 'revokeBuilderToken',
          summary: 'Revoke a token: refused from the next request on',
          params: TokenParams,
          response: { 204: Type.Null(), ...problemResponses(403, 404) },
        },
      },
      async (request, reply) => {
        await builders.revokeToken(request.principal.customerId, request.params.builderId, request.params.tokenId);
        return reply.status(204).send(null);
      },
    );
  };
}
