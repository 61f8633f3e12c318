// The provider sign-in and second-factor routes in a version's OpenAPI document (DESIGN §18;
// http/account-provider-routes.ts), and the log-in's second answer, `{mfaRequired, mfaToken}`.
import type { CompiledApp } from '../compiled-app.ts';
import { schemaRef, type JsonSchema } from './schemas.ts';

type PathItem = Record<string, unknown>;

const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: schemaRef('Problem') } } });
const tags = ['auth'];
const CODE = { type: 'string', description: 'A six-digit code of the authenticator app (or, where said, an unused recovery code).' };

export const MFA_CHALLENGE: JsonSchema = {
  type: 'object',
  description: 'The account has a second factor: send a code with this token to POST /auth/mfa.',
  properties: {
    mfaRequired: { type: 'boolean', const: true },
    mfaToken: { type: 'string', description: 'Good for five minutes, for POST /auth/mfa only.' },
  },
  required: ['mfaRequired', 'mfaToken'],
};

const PROVIDER_PARAMETER = { name: 'provider', in: 'path', required: true, schema: { type: 'string', pattern: '^[a-z][a-z0-9-]{0,31}$' } };
const SIGNED_IN = [{ endUser: [] }];
const TOO_MANY = problem('Too many attempts from this address (or, for codes, for this account) in a minute; see Retry-After.');

function paths(): Record<string, PathItem> {
  const session = { oneOf: [schemaRef('Session'), schemaRef('MfaChallenge')] };
  return {
    '/auth/providers': {
      get: {
        operationId: 'listSignInProviders',
        summary: 'The OpenID Connect providers end users may sign in with',
        description: 'Declared by the builder in the application variable AUTH_PROVIDERS (a JSON array), each provider\'s client secret in the application secret it names.',
        tags,
        security: [{}],
        responses: {
          200: {
            description: 'The providers; send the browser to `startUrl`. Register `callbackUrl` as a redirect URI at the provider.',
            content: json({
              type: 'object',
              properties: {
                items: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: { name: { type: 'string' }, displayName: { type: 'string' }, startUrl: { type: 'string', format: 'uri' }, callbackUrl: { type: 'string', format: 'uri' } },
                    required: ['name', 'displayName', 'startUrl', 'callbackUrl'],
                  },
                },
              },
              required: ['items'],
            }),
          },
          409: problem('AUTH_PROVIDERS is not usable (not JSON, a bad member, or a client secret not set); each error names the member.'),
          429: TOO_MANY,
        },
      },
    },
    '/auth/oauth/{provider}': {
      parameters: [PROVIDER_PARAMETER],
      get: {
        operationId: 'startProviderSignIn',
        summary: 'Start a sign-in with a provider (a browser navigation)',
        description:
          'Answers 302 to the provider\'s authorization endpoint: authorization code with PKCE (S256), `state` and `nonce`. The state is kept on the server for ten minutes and bound to this browser by an httpOnly cookie. With `redirect` the callback sends the browser there with the session in the URL fragment (`#token=…&refreshToken=…`, or `#mfaRequired=true&mfaToken=…`). Answered on the application\'s own origin only (`startUrl` of /auth/providers); elsewhere 404.',
        tags,
        security: [{}],
        parameters: [
          { name: 'redirect', in: 'query', schema: { type: 'string', format: 'uri' }, description: 'On the application\'s own origin or one listed in the AUTH_REDIRECT_ORIGINS variable (scheme, host and port exactly).' },
        ],
        responses: {
          302: { description: 'To the provider.', headers: { location: { schema: { type: 'string', format: 'uri' } } } },
          400: problem('The redirect is not allowed.'),
          404: problem('No such provider, or not the application\'s own origin.'),
          429: TOO_MANY,
        },
      },
    },
    '/auth/oauth/{provider}/callback': {
      parameters: [PROVIDER_PARAMETER],
      get: {
        operationId: 'finishProviderSignIn',
        summary: 'Where the provider sends the browser back',
        description:
          'Checks the state against this browser\'s cookie and the started sign-in (each used once), exchanges the code with the PKCE verifier and validates the ID token. Signs in the user linked to this provider account; else links the user with the same email when the provider says it is verified (`email_verified`); else signs a new user up.',
        tags,
        security: [{}],
        responses: {
          200: { description: 'Signed in (no `redirect` was given at the start).', content: json(session) },
          302: { description: 'To the start\'s `redirect`, the session in the fragment.' },
          400: problem('The state does not match this browser\'s sign-in, expired or was used.'),
          401: problem('The provider refused, or its answer did not verify.'),
          403: problem('The provider has not verified the account\'s email.'),
          404: problem('No such provider, or not the application\'s own origin.'),
          422: problem('The user model requires fields the provider does not give; each error names one.'),
          429: TOO_MANY,
        },
      },
    },
    '/auth/mfa': {
      post: {
        operationId: 'completeSecondFactor',
        summary: 'Finish a sign-in that answered mfaRequired',
        tags,
        security: [{}],
        requestBody: {
          required: true,
          content: json({ type: 'object', properties: { mfaToken: { type: 'string' }, code: { ...CODE, description: 'A current six-digit code, or an unused recovery code (each works once).' } }, required: ['mfaToken', 'code'] }),
        },
        responses: { 200: { description: 'Signed in.', content: json(schemaRef('Session')) }, 400: problem('mfaToken or code missing.'), 401: problem('The code is not right or already used, or the mfaToken expired.'), 429: TOO_MANY },
      },
    },
    '/auth/mfa/totp/enroll': {
      post: {
        operationId: 'enrollTotp',
        summary: 'Start enrolling an authenticator app',
        description: 'A new secret (replacing one not yet confirmed); not active until POST /auth/mfa/totp/verify confirms a code.',
        tags,
        security: SIGNED_IN,
        responses: {
          200: {
            description: 'Show `otpauthUri` as a QR code, or the secret to type in.',
            content: json({ type: 'object', properties: { secret: { type: 'string', description: 'Base32.' }, otpauthUri: { type: 'string' } }, required: ['secret', 'otpauthUri'] }),
          },
          401: problem('Not signed in.'),
          409: problem('A second factor is already active.'),
          429: TOO_MANY,
        },
      },
    },
    '/auth/mfa/totp/verify': {
      post: {
        operationId: 'verifyTotp',
        summary: 'Confirm the enrollment with a code; answers the recovery codes once',
        tags,
        security: SIGNED_IN,
        requestBody: { required: true, content: json({ type: 'object', properties: { code: CODE }, required: ['code'] }) },
        responses: {
          200: {
            description: 'Active. Keep the recovery codes: they are shown only now, each works once.',
            content: json({ type: 'object', properties: { recoveryCodes: { type: 'array', items: { type: 'string' } } }, required: ['recoveryCodes'] }),
          },
          401: problem('Not signed in.'),
          409: problem('Already active.'),
          422: problem('The code is not right.'),
          429: TOO_MANY,
        },
      },
    },
    '/auth/mfa/totp/disable': {
      post: {
        operationId: 'disableTotp',
        summary: 'Remove the second factor, given a code or a recovery code',
        tags,
        security: SIGNED_IN,
        requestBody: { required: true, content: json({ type: 'object', properties: { code: CODE }, required: ['code'] }) },
        responses: { 204: { description: 'Removed, with its recovery codes.' }, 401: problem('Not signed in.'), 422: problem('The code is not right.'), 429: TOO_MANY },
      },
    },
  };
}

/**
 * Adds the routes (apps with a user model) and the `MfaChallenge` schema, and makes the log-in's
 * 200 answer either a session or the challenge.
 */
export function addAccountFactorPaths(app: CompiledApp, document: { paths: Record<string, PathItem> }, schemas: Record<string, JsonSchema>): void {
  if (!app.userModel) return;
  for (const [path, item] of Object.entries(paths())) document.paths[path] ??= item;
  schemas.MfaChallenge = MFA_CHALLENGE;
  const login = document.paths['/auth/login']?.post as { responses?: Record<string, { content?: unknown }> } | undefined;
  const ok = login?.responses?.['200'];
  if (ok) ok.content = json({ oneOf: [schemaRef('Session'), schemaRef('MfaChallenge')] });
}
