// Who calls a generated application's route: nobody, an end user (their bearer token), or a
// builder with management credentials (`x-svc-api-client` and the management bearer). A builder
// is checked as the management API checks it: an application of another customer, or outside the
// credentials' projects, is not found (404, as the management API answers for it); a `viewer`
// may only read (GET, HEAD, realtime streams); a write needs `editor` or above (403 naming the
// role). An admitted builder acts as the application's administrator (its rules bypassed), and
// every write it makes is audited (access/audit.ts).
import type { FastifyRequest } from 'fastify';
import { decodeJwt, type JWTPayload } from 'jose';
import { forbidden, notFound, unauthorized } from '../../errors.ts';
import { roleAtLeast, type Role } from '../../access/roles.ts';
import { isReadMethod, noteAppWrite } from '../../access/audit.ts';
import type { Principal } from '../../services/tokens.ts';
import type { Caller } from '../caller.ts';
import type { ServedApp } from '../registry.ts';
import type { EndUserAuth } from './end-user-auth.ts';

/** What a management credential says of its holder: enough to check it on an application and audit its writes. */
export type AppBuilder = Pick<Principal, 'customerId' | 'role' | 'projectIds' | 'actor'>;

/**
 * The holder of the management credentials these headers carry, authenticated as the management
 * API authenticates (a revoked or expired token is refused on the next request: 401).
 */
export type BuilderOf = (request: FastifyRequest) => Promise<AppBuilder>;

/** The least role a write on an application's routes needs (as the management API's writes). */
export const APP_WRITE_ROLE: Role = 'editor';

export interface AppCallerOptions {
  auth: EndUserAuth;
  builderPrincipal: BuilderOf;
  appsPath: string;
}

/** Whether the request carries management credentials rather than an end user's (or none). */
export function hasManagementCredentials(request: FastifyRequest): boolean {
  return request.headers['x-svc-api-client'] !== undefined;
}

/**
 * Refuses `builder` on `served` unless its customer owns it and its projects include it (404,
 * the management API's answer for an application it may not see), and refuses a write (`read`
 * false) below the editor role (403).
 */
export function admitBuilder(builder: AppBuilder, served: ServedApp, read: boolean, what: string): void {
  const { applicationId } = served.compiled;
  if (builder.customerId !== served.customerId || (builder.projectIds !== null && !builder.projectIds.includes(served.projectId))) {
    throw notFound(`Application ${applicationId} was not found.`, '/applicationId');
  }
  if (!read && !roleAtLeast(builder.role, APP_WRITE_ROLE)) {
    throw forbidden(`${what} needs the ${APP_WRITE_ROLE} role (or higher); the caller's role is ${builder.role}. A viewer may only read an application's data.`);
  }
}

/** Why a bearer token was refused, read from its unverified claims (the reasons say nothing secret). */
export function tokenTrouble(token: string): string {
  let claims: JWTPayload;
  try {
    claims = decodeJwt(token);
  } catch {
    return 'The token is malformed: expected a JWT (three base64url parts separated by dots) from POST …/auth/login.';
  }
  if (typeof claims.exp === 'number' && claims.exp * 1000 <= Date.now()) {
    return `The token expired at ${new Date(claims.exp * 1000).toISOString()}; log in again (POST …/auth/login).`;
  }
  return 'The token is not valid for this application.';
}

/**
 * The caller of `request` on `served`'s route `template`. An end user's request costs what it
 * did (its token verified, nothing more); management credentials cost their authentication, the
 * checks above read the served version's customer and project (loaded with the deployment).
 */
export async function callerOf(request: FastifyRequest, served: ServedApp, options: AppCallerOptions, template: string): Promise<Caller> {
  if (hasManagementCredentials(request)) {
    const builder = await options.builderPrincipal(request);
    const { applicationId, serverVersion } = served.compiled;
    // Noted before the checks: a refused write (403, 404) is on the trail too, as on the management API.
    noteAppWrite(request, {
      customerId: builder.customerId,
      actor: builder.actor,
      method: request.method,
      path: `${options.appsPath}/:applicationId/api/v${serverVersion}${template}`,
      applicationId,
    });
    admitBuilder(builder, served, isReadMethod(request.method), `${request.method} ${template}`);
    return { kind: 'admin', actor: builder.actor };
  }
  const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (!token) return { kind: 'anonymous' };
  const user = await options.auth.verify(served.compiled, token);
  if (!user) throw unauthorized(tokenTrouble(token));
  return { kind: 'user', user };
}
