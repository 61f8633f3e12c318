import type { FastifyInstance, FastifyRequest } from 'fastify';
import { forbidden } from '../errors.ts';
import type { Principal, TokenService } from '../services/tokens.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

/** The three schemes the spec requires together on every management operation. */
export const MANAGEMENT_SECURITY = [{ builderBearer: [], apiClient: [], apiCredentials: [] }];

/**
 * Authenticates every route registered in `app`'s scope: bearer token plus the
 * `x-svc-api-client` key, which must be the token's own client.
 */
export function requireApiClient(app: FastifyInstance, tokens: TokenService): void {
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (request) => {
    const header = request.headers['x-svc-api-client'];
    request.principal = await tokens.authenticate(request.headers.authorization, Array.isArray(header) ? header[0] : header);
  });
}

export function requirePlatformAdmin(request: FastifyRequest): void {
  if (!request.principal.isPlatformAdmin) throw forbidden('Only a platform administrator may do this.');
}
