import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/index.ts';
import { requirePlatformAdmin, MANAGEMENT_SECURITY } from '../auth.ts';
import { DateTime, ListEnvelope, PageQuery, problemResponses, Uuid } from '../schemas.ts';

const Credentials = Type.Object({ apiKey: Type.String(), secret: Type.String() });

const ApiClientSummary = Type.Object({
  id: Uuid,
  name: Type.String(),
  apiKey: Type.String(),
  isPlatformAdmin: Type.Boolean(),
  createdAt: DateTime,
  revokedAt: Type.Optional(DateTime),
});

/** Customers (platform administrators only) and each customer's own API clients. */
export function customerRoutes(services: Services): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/customers',
      {
        // Platform administrators only (checked in the handler); never a builder.
        config: { requiredRole: 'owner' },
        schema: {
          operationId: 'createCustomer',
          tags: ['customers'],
          summary: 'Create a customer with its first API client (platform administrators)',
          security: MANAGEMENT_SECURITY,
          body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }),
          response: { 201: Type.Object({ id: Uuid, name: Type.String(), apiClient: Credentials }), ...problemResponses(403) },
        },
      },
      async (request, reply) => {
        requirePlatformAdmin(request);
        reply.status(201);
        return services.customers.create(request.body.name);
      },
    );

    app.post(
      '/api-clients',
      {
        config: { requiredRole: 'owner', unscopedOnly: true },
        schema: {
          operationId: 'createApiClient',
          tags: ['customers'],
          summary: "Create an API client for the caller's customer; the secret is shown once",
          security: MANAGEMENT_SECURITY,
          body: Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }),
          response: { 201: Type.Object({ id: Uuid, name: Type.String(), apiKey: Type.String(), secret: Type.String() }), ...problemResponses() },
        },
      },
      async (request, reply) => {
        reply.status(201);
        return services.apiClients.create(request.principal.customerId, { name: request.body?.name });
      },
    );

    app.get(
      '/api-clients',
      {
        config: { requiredRole: 'owner', unscopedOnly: true },
        schema: {
          operationId: 'listApiClients',
          tags: ['customers'],
          summary: "List the caller's customer's API clients (never their secrets)",
          security: MANAGEMENT_SECURITY,
          querystring: PageQuery,
          response: { 200: ListEnvelope(ApiClientSummary), ...problemResponses() },
        },
      },
      async (request) => {
        const { items, total } = await services.apiClients.list(request.principal.customerId, request.query.limit, request.query.offset);
        return { items, metadata: { total } };
      },
    );

    app.delete(
      '/api-clients/:apiClientId',
      {
        config: { requiredRole: 'owner', unscopedOnly: true },
        schema: {
          operationId: 'deleteApiClient',
          tags: ['customers'],
          summary: 'Revoke an API client; its tokens stop working at once',
          security: MANAGEMENT_SECURITY,
          params: Type.Object({ apiClientId: Uuid }),
          response: { 204: Type.Null(), ...problemResponses(404, 409) },
        },
      },
      async (request, reply) => {
        await services.apiClients.revoke(request.principal.customerId, request.params.apiClientId, request.principal.clientId);
        return reply.status(204).send(null);
      },
    );
  };
}
