import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { badRequest, unauthorized } from '../../errors.ts';
import type { Services } from '../../services/index.ts';
import { ProblemSchema } from '../schemas.ts';

const TokenRequest = Type.Object({
  grant_type: Type.Optional(Type.String()),
  client_id: Type.Optional(Type.String()),
  client_secret: Type.Optional(Type.String()),
  scope: Type.Optional(Type.String()),
});

const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
});

/** Credentials from the body, or from HTTP Basic as RFC 6749 §2.3.1 also allows. */
function basicCredentials(header: string | undefined): { id: string; secret: string } | null {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
}

/** `POST /oauth/token`: OAuth 2 client credentials, JSON or form-encoded, rate-limited. */
export function oauthRoutes(services: Services): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/oauth/token',
      {
        config: { rateLimit: { max: services.config.tokenRateLimitPerMinute, timeWindow: '1 minute' } },
        schema: {
          operationId: 'createAccessToken',
          tags: ['auth'],
          summary: 'Exchange API client credentials for an access token',
          security: [],
          consumes: ['application/json', 'application/x-www-form-urlencoded'],
          body: TokenRequest,
          response: { 200: TokenResponse, 400: ProblemSchema, 401: ProblemSchema, 415: ProblemSchema, 429: ProblemSchema },
        },
      },
      async (request, reply) => {
        const body = request.body ?? {};
        if (body.grant_type !== undefined && body.grant_type !== 'client_credentials') {
          throw badRequest('Only grant_type "client_credentials" is supported.', [
            { path: '/grant_type', message: 'must be "client_credentials"' },
          ]);
        }
        const basic = basicCredentials(request.headers.authorization);
        const id = body.client_id ?? basic?.id;
        const secret = body.client_secret ?? basic?.secret;
        if (!id || !secret) throw unauthorized('Send client_id and client_secret.');
        reply.header('cache-control', 'no-store');
        return services.tokens.issue(id, secret);
      },
    );
  };
}
