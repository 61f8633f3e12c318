// The session and mail routes of end-user accounts in a version's OpenAPI document (DESIGN §18;
// runtime/accounts/routes.ts): refresh, logout, email verification, password reset, email change,
// with their bodies, answers and problems; and the refresh token in the Session schema.
import type { CompiledApp } from '../compiled-app.ts';
import { REQUIRE_VERIFIED_VARIABLE } from '../accounts/verified.ts';
import { schemaRef, type JsonSchema } from './schemas.ts';

type PathItem = Record<string, unknown>;

const json = (schema: JsonSchema) => ({ 'application/json': { schema } });
const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: schemaRef('Problem') } } });
const tags = ['auth'];
const ANYONE = [{}];
const SIGNED_IN = [{ endUser: [] }];

const object = (properties: Record<string, JsonSchema>, required: string[]): JsonSchema => ({ type: 'object', properties, required, additionalProperties: true });
/** A token as the routes take it (runtime/accounts/routes.ts): 1 to 200 characters. */
const TOKEN = { type: 'string', minLength: 1, maxLength: 200 };
const TOKEN_BODY = object({ token: { ...TOKEN, description: 'The `token` of the mail\'s link.' } }, ['token']);
const EMAIL = { type: 'string', format: 'email' };

const QUEUED: JsonSchema = object({ message: { type: 'string' } }, ['message']);
const ACCEPTED = {
  description: 'Accepted: a mail goes out if the address belongs to an account. The same answer, in the same time, whether or not it does.',
  content: json(schemaRef('MailQueued')),
};

const TOO_MANY = problem('Too many requests from this address or for this account in a minute; see Retry-After.');
const BAD_BODY = problem('The body is not as described; each error names the member.');
const BAD_TOKEN = problem('The token is missing or not 1 to 200 characters, unknown, used (or replaced by a newer mail) or expired: `errors[0].message` says which.');
const NO_MAIL = problem(
  'The application sends no mail: its SMTP_URL secret (or the service\'s APPBUILDER_SMTP_URL) is not set, or its links would have no trustworthy address (set FRONTEND_URL, or the service\'s APPBUILDER_APPS_DOMAIN).',
);
const SIGN_IN = problem('Not signed in as an end user.');

function paths(): Record<string, PathItem> {
  const post = (operationId: string, summary: string, description: string, security: unknown[], body: JsonSchema | null, responses: Record<string, unknown>) => ({
    post: {
      operationId,
      summary,
      description,
      tags,
      security,
      ...(body ? { requestBody: { required: true, content: json(body) } } : {}),
      responses: { ...responses, 429: TOO_MANY },
    },
  });
  return {
    '/auth/refresh': post(
      'refreshSession',
      'Exchange a refresh token for a new access token and refresh token',
      'Each refresh token works once. Presenting one that was already used ends its whole session (every later refresh token and the access tokens of that session are refused): it was copied.',
      ANYONE,
      object({ refreshToken: TOKEN }, ['refreshToken']),
      { 200: { description: 'The new pair.', content: json(schemaRef('Session')) }, 400: BAD_BODY, 401: problem('Unknown, expired, logged out, or already used (the session is now ended).') },
    ),
    '/auth/logout': post(
      'logOut',
      'End this session, or every session of the user',
      'With `all: true` every session of the user ends and every access token issued until now is refused from the next request on; otherwise this access token\'s session.',
      SIGNED_IN,
      { type: 'object', properties: { all: { type: 'boolean', default: false } } },
      { 204: { description: 'Logged out.' }, 400: BAD_BODY, 401: SIGN_IN },
    ),
    '/auth/verify/request': post(
      'requestEmailVerification',
      'Send a mail with a link that verifies the address',
      `Signed in: to the user's address. Otherwise \`email\` names it (for an app that requires a verified address to log in: variable ${REQUIRE_VERIFIED_VARIABLE}). The link goes to the app's frontend page \`#/verify?token=…\` (variable FRONTEND_URL).`,
      [...SIGNED_IN, ...ANYONE],
      { type: 'object', properties: { email: EMAIL } },
      { 202: ACCEPTED, 400: BAD_BODY, 422: problem('Not an email address.'), 503: NO_MAIL },
    ),
    '/auth/verify/confirm': post(
      'confirmEmailVerification',
      'Verify the address with the token of the mail',
      'Sets the user model\'s `verified` field (when it has one).',
      ANYONE,
      TOKEN_BODY,
      { 200: { description: 'Verified.', content: json(object({ verified: { type: 'boolean', const: true } }, ['verified'])) }, 400: BAD_TOKEN },
    ),
    '/auth/password/request': post(
      'requestPasswordReset',
      'Send a mail with a link to choose a new password',
      'The link goes to the app\'s frontend page `#/reset-password?token=…`.',
      ANYONE,
      object({ email: EMAIL }, ['email']),
      { 202: ACCEPTED, 400: BAD_BODY, 422: problem('Not an email address.'), 503: NO_MAIL },
    ),
    '/auth/password/confirm': post(
      'confirmPasswordReset',
      'Set a new password with the token of the mail',
      'Ends every session of the user at once: their access and refresh tokens are refused from now on. Verifies the address.',
      ANYONE,
      object({ token: TOKEN, password: { type: 'string', minLength: 8, writeOnly: true } }, ['token', 'password']),
      { 204: { description: 'The password is changed; log in with it.' }, 400: BAD_TOKEN, 422: problem('The password is too short.') },
    ),
    '/auth/email/request': post(
      'requestEmailChange',
      'Send a mail to a new address with a link that makes it the user\'s',
      'The link goes to the app\'s frontend page `#/confirm-email?token=…`. A stolen access token alone cannot move the account: send `currentPassword`, unless the session signed in within the last 5 minutes. Once confirmed, the old address is mailed a notice.',
      SIGNED_IN,
      object({ newEmail: EMAIL, currentPassword: { type: 'string', writeOnly: true, description: 'The account\'s password; optional within 5 minutes of signing in.' } }, ['newEmail']),
      {
        202: ACCEPTED,
        400: BAD_BODY,
        401: SIGN_IN,
        403: problem('No currentPassword and no sign-in within the last 5 minutes, or the password is not right (`errors[0].path` is `/currentPassword`).'),
        422: problem('Not an email address.'),
        503: NO_MAIL,
      },
    ),
    '/auth/email/confirm': post(
      'confirmEmailChange',
      'Change the address with the token of the mail',
      'The new address is verified; the old one is mailed a notice of the change.',
      ANYONE,
      TOKEN_BODY,
      {
        200: { description: 'The address is changed.', content: json(object({ email: EMAIL }, ['email'])) },
        400: BAD_TOKEN,
        409: problem('Another account has that address now.'),
      },
    ),
  };
}

export function addAccountSessionPaths(app: CompiledApp, document: { paths: Record<string, PathItem> }, schemas: Record<string, JsonSchema>): void {
  if (!app.userModel) return;
  for (const [path, item] of Object.entries(paths())) document.paths[path] ??= item;
  schemas.MailQueued = QUEUED;
  const session = schemas.Session as { properties: Record<string, JsonSchema>; required: string[] } | undefined;
  if (session) {
    session.properties.token = { type: 'string', description: 'A JWT good for APPBUILDER_APP_TOKEN_TTL seconds (default 900); send it as `Authorization: Bearer <token>`.' };
    session.properties.refreshToken = { type: 'string', description: 'Exchanged once at POST /auth/refresh for a new pair.' };
    session.required = [...new Set([...session.required, 'refreshToken'])];
  }
  const login = document.paths['/auth/login']?.post as { responses?: Record<string, unknown> } | undefined;
  if (login?.responses) login.responses['403'] = problem(`The address is not verified and the app requires it (variable ${REQUIRE_VERIFIED_VARIABLE}); type https://appbuilder.dev/problems/email-not-verified.`);
}
