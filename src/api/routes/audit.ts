import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/index.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { DateTime, ListEnvelope, PageQuery, problemResponses, Uuid } from '../schemas.ts';

const AuditEventSchema = Type.Object(
  {
    id: Uuid,
    at: DateTime,
    actor: Type.Object({ type: Type.Union([Type.Literal('apiClient'), Type.Literal('builder')]), id: Uuid }),
    operationId: Type.Union([Type.String(), Type.Null()]),
    method: Type.String(),
    path: Type.String({ description: 'The route template (e.g. /v1/projects/:projectId), never the query string.' }),
    status: Type.Integer(),
    requestId: Type.String(),
    applicationId: Type.Union([Uuid, Type.Null()], {
      description: "The generated application whose own route was written with management credentials (path is then that app's route template); null for the management API's routes.",
    }),
  },
  { $id: 'AuditEvent' },
);

/** The audit trail: management writes, and writes with management credentials on the apps' own routes; owners only. */
export function auditRoutes(services: Services): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/audit-events',
      {
        // The whole customer's trail: not for a builder limited to some projects.
        config: { requiredRole: 'owner', unscopedOnly: true },
        schema: {
          tags: ['builders'],
          security: MANAGEMENT_SECURITY,
          operationId: 'listAuditEvents',
          summary: "The customer's management writes, newest first",
          querystring: Type.Composite([
            PageQuery,
            Type.Object({ actorId: Type.Optional(Uuid), operationId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), applicationId: Type.Optional(Uuid), since: Type.Optional(DateTime) }),
          ]),
          response: { 200: ListEnvelope(AuditEventSchema), ...problemResponses(403) },
        },
      },
      async (request) => {
        const page = await services.audit.list(request.principal.customerId, request.query);
        return { items: page.items, metadata: { total: page.total } };
      },
    );
  };
}
