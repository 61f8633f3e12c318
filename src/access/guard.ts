// The one access check of the management API (DESIGN §10), declared per route and run for
// every route of the management scope: the role a route needs (`config.requiredRole`, else
// by method) and the caller's project scope, read from the parameters named `projectId` and
// `applicationId`. A route added later is covered by naming its parameters so.
import type { FastifyInstance, FastifyRequest, FastifySchema } from 'fastify';
import type { Db } from '../storage/db.ts';
import { forbidden, notFound } from '../errors.ts';
import { defaultRequiredRole, roleAtLeast, type Role } from './roles.ts';
import { runInContext } from './actor-context.ts';
import { pendingAuditOf } from './audit.ts';
import { isUuid } from '../tools/ids.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Refused (403) to a builder limited to some projects: creating a project (DESIGN §10). */
    unscopedOnly?: boolean;
  }
}

/** The OpenAPI extension naming each operation's least role, for clients that grey out what they cannot do. */
export const REQUIRED_ROLE_EXTENSION = 'x-required-role';

export function requiredRoleOf(request: FastifyRequest): Role {
  return request.routeOptions.config.requiredRole ?? defaultRequiredRole(request.method);
}

/**
 * Registers the guard on `app` (the management scope, after authentication): states each
 * route's role in the OpenAPI document, refuses a call beyond the caller's role or outside its
 * projects before the body is read, checks `projectId` / `applicationId` members of the
 * validated body and query string too, and runs the handler on behalf of the caller's actor
 * (with the audit row its transaction writes, audit.ts).
 */
export function guardManagementRoutes(app: FastifyInstance, db: Db): void {
  // Registered before the routes, so @fastify/swagger (which reads the schema when the
  // document is generated) sees the extension.
  app.addHook('onRoute', (route) => {
    if (route.schema?.hide) return;
    const method = Array.isArray(route.method) ? route.method[0] : route.method;
    const role = route.config?.requiredRole ?? defaultRequiredRole(method);
    // FastifySchema has no index signature for extensions; @fastify/swagger copies `x-` members to the operation.
    route.schema = { ...route.schema, [REQUIRED_ROLE_EXTENSION]: role } as FastifySchema;
  });

  app.addHook('onRequest', async (request) => {
    const { principal } = request;
    const params = (request.params ?? {}) as Record<string, unknown>;
    await checkScope(db, principal.customerId, principal.projectIds, params);
    const needed = requiredRoleOf(request);
    if (!roleAtLeast(principal.role, needed)) {
      throw forbidden(`This operation needs the ${needed} role (or higher); the caller's role is ${principal.role}.`);
    }
    if (principal.projectIds !== null && request.routeOptions.config.unscopedOnly) {
      throw forbidden('A builder limited to some projects cannot do this; it needs access to every project (projectIds null).');
    }
  });

  app.addHook('preHandler', (request, _reply, done) => {
    const { principal } = request;
    const members = { ...asRecord(request.query), ...asRecord(request.body) };
    checkScope(db, principal.customerId, principal.projectIds, members).then(
      () => runInContext({ actor: principal.actor, audit: pendingAuditOf(request) }, done),
      (error: Error) => done(error),
    );
  });
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * 404 for a project outside `projectIds`, or an application of one: the same answer as for a
 * project that does not exist, so a scoped builder learns nothing about the others. An
 * unknown application is left to the handler (its own 404).
 */
async function checkScope(db: Db, customerId: string, projectIds: string[] | null, members: Record<string, unknown>): Promise<void> {
  if (projectIds === null) return;
  const { projectId, applicationId } = members;
  if (typeof projectId === 'string' && !projectIds.includes(projectId)) {
    throw notFound(`Project ${projectId} was not found.`, '/projectId');
  }
  // A malformed id is the validator's to refuse (400), not a query's.
  if (typeof applicationId === 'string' && isUuid(applicationId)) {
    const row = await db.kysely
      .selectFrom('appbuilder.applications')
      .select('project_id')
      .where('id', '=', applicationId)
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    if (row && !projectIds.includes(row.project_id)) throw notFound(`Application ${applicationId} was not found.`, '/applicationId');
  }
}
