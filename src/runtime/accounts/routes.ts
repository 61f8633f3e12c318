// The account routes of a generated app beside sign-up, log-in and /auth/me (auth-routes.ts):
// sessions (refresh, logout) and the mails (verify, password reset, email change); DESIGN §18.
// Every one is limited per address and per account (limits.ts) before it does anything.
import { badRequest, unauthorized } from '../../errors.ts';
import type { EndUserAuth } from '../http/end-user-auth.ts';
import type { RouteSource } from '../http/router.ts';
import type { AppRequest, AppResponse, AppRoute } from '../http/types.ts';
import type { AccountEmails } from './email-flows.ts';
import { normaliseEmail } from './email-flows.ts';
import type { AccountLimits } from './limits.ts';
import { logout, refreshSession, sha256, type AccessClaims } from './sessions.ts';

function bodyOf(request: AppRequest): Record<string, unknown> {
  const body = request.body ?? {};
  if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('The body must be a JSON object.', [{ path: '', message: 'must be an object' }]);
  return body as Record<string, unknown>;
}

/** The longest token a body may carry, in characters (code points, as `maxLength` counts them in the OpenAPI). */
export const MAX_TOKEN_LENGTH = 200;

function tokenOf(body: Record<string, unknown>, name: string): string {
  const token = body[name];
  if (typeof token !== 'string' || token.length === 0 || [...token].length > MAX_TOKEN_LENGTH) {
    throw badRequest(`Send ${name}: 1 to ${MAX_TOKEN_LENGTH} characters.`, [{ path: `/${name}`, message: 'is required' }]);
  }
  return token;
}

function signedIn(request: AppRequest): string {
  if (request.caller.kind !== 'user') throw unauthorized('Log in first: send Authorization: Bearer <token> of an end user.');
  return String(request.caller.user.id);
}

/** What the request's bearer token claims (it was verified when the caller was resolved). */
async function claimsOf(auth: EndUserAuth, request: AppRequest): Promise<AccessClaims> {
  const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  const claims = token ? await auth.claims(request.app, token) : null;
  if (!claims || request.caller.kind !== 'user') throw unauthorized('Log in first: send Authorization: Bearer <token> of an end user.');
  return claims;
}

export function accountRoutes(auth: EndUserAuth, emails: AccountEmails, limits: AccountLimits): RouteSource {
  /** A POST route whose limits are counted first: `account` names what the request is about. */
  const limited = (path: string, account: (request: AppRequest) => string | null, answer: (request: AppRequest) => Promise<AppResponse>): AppRoute => ({
    method: 'POST',
    path,
    handler: async (request) => limits.refuse(request.app, request.address ?? '', account(request)) ?? answer(request),
  });
  const userOrNone = (request: AppRequest) => (request.caller.kind === 'user' ? `u ${String(request.caller.user.id)}` : null);
  const tokenKey = (name: string) => (request: AppRequest) => {
    const value = (request.body as Record<string, unknown> | null | undefined)?.[name];
    return typeof value === 'string' ? `t ${sha256(value)}` : null;
  };
  const emailKey = (name: string) => (request: AppRequest) => {
    const value = (request.body as Record<string, unknown> | null | undefined)?.[name];
    return typeof value === 'string' ? `e ${value.trim().toLowerCase()}` : userOrNone(request);
  };

  return (app) => {
    if (!app.userModel) return [];
    return [
      limited('/auth/refresh', tokenKey('refreshToken'), async (request) => ({
        status: 200,
        body: await refreshSession(auth.sessionContext(request.app, request.filesUrl), tokenOf(bodyOf(request), 'refreshToken')),
      })),
      limited('/auth/logout', userOrNone, async (request) => {
        const all = bodyOf(request).all;
        if (all !== undefined && typeof all !== 'boolean') throw badRequest('`all` is true or false.', [{ path: '/all', message: 'must be a boolean' }]);
        await logout(auth.sessionContext(request.app), await claimsOf(auth, request), all === true);
        return { status: 204 };
      }),
      limited('/auth/verify/request', emailKey('email'), async (request) => {
        const { email } = bodyOf(request);
        // A signed-in caller needs no email, but one given is checked like any other body member.
        const checked = request.caller.kind === 'user' && email === undefined ? undefined : normaliseEmail(email, '/email');
        const target = request.caller.kind === 'user' ? { userId: String(request.caller.user.id) } : { email: checked! };
        return { status: 202, body: emails.verifyRequest(request, target) };
      }),
      limited('/auth/verify/confirm', tokenKey('token'), async (request) => ({ status: 200, body: await emails.verifyConfirm(request, tokenOf(bodyOf(request), 'token')) })),
      limited('/auth/password/request', emailKey('email'), async (request) => ({
        status: 202,
        body: emails.passwordRequest(request, normaliseEmail(bodyOf(request).email, '/email')),
      })),
      limited('/auth/password/confirm', tokenKey('token'), async (request) => {
        const body = bodyOf(request);
        await emails.passwordConfirm(request, tokenOf(body, 'token'), body.password);
        return { status: 204 };
      }),
      limited('/auth/email/request', userOrNone, async (request) => {
        const userId = signedIn(request);
        const body = bodyOf(request);
        const newEmail = normaliseEmail(body.newEmail, '/newEmail');
        const { signedInAtMs } = await claimsOf(auth, request);
        return { status: 202, body: await emails.emailRequest(request, userId, newEmail, { currentPassword: body.currentPassword, signedInAtMs }) };
      }),
      limited('/auth/email/confirm', tokenKey('token'), async (request) => ({ status: 200, body: await emails.emailConfirm(request, tokenOf(bodyOf(request), 'token')) })),
    ];
  };
}
