// The sign-in provider and second-factor routes of a generated app (DESIGN §18):
// `GET /auth/providers`, `GET /auth/oauth/{provider}` (+ `/callback`), `POST /auth/mfa`,
// `POST /auth/mfa/totp/enroll|verify|disable`. Each is limited per address
// (APPBUILDER_AUTH_RATE_LIMIT a minute); those that take a code also per account. The provider
// start and callback answer on the application's own origin only (accounts/oidc.ts).
import { Problem, unauthorized } from '../../errors.ts';
import type { AppOrigins } from '../../tools/app-origin.ts';
import type { Db } from '../../storage/db.ts';
import type { AfterCommit } from './after-commit.ts';
import type { EndUserAuth } from './end-user-auth.ts';
import { MinuteCounter, addressKey, tooManyRequests, type RateLimitSettings } from './rate-limits.ts';
import type { RouteSource } from './router.ts';
import type { AppRequest, AppResponse } from './types.ts';
import { providersOf } from '../accounts/providers.ts';
import { callbackUrl, finishSignIn, startSignIn, userForIdentity, type FlowPlace } from '../accounts/oidc.ts';
import { isChallenge, type MfaGate } from '../accounts/mfa.ts';

/** Code attempts per account a minute (TOTP has a million codes: ten a minute keeps guessing hopeless). */
export const MFA_ATTEMPTS_PER_MINUTE = 10;

export interface AccountProviderOptions {
  db: Db;
  auth: EndUserAuth;
  afterCommit: AfterCommit;
  mfa: MfaGate;
  limits: RateLimitSettings;
  /** Each application's own origin (null: none configured, so no provider sign-in). */
  origins: AppOrigins | null;
}

/**
 * Where a sign-in runs: the version on the app's own origin, built from configuration (never from
 * the request's `Host` or forwarded headers), and whether the request came there.
 */
function placeOf(request: AppRequest, origins: AppOrigins | null): FlowPlace {
  if (!origins) throw new Problem(503, 'This service knows no origin for its applications, so no provider sign-in: set APPBUILDER_APPS_DOMAIN (and APPBUILDER_PUBLIC_URL behind a proxy).');
  const { applicationId, serverVersion } = request.app;
  return {
    app: request.app,
    versionUrl: `${origins.of(applicationId)}/api/v${serverVersion}`,
    ...(request.values ? { values: request.values } : {}),
    onOwnOrigin: origins.applicationOf(request.headers.host) === applicationId.toLowerCase(),
  };
}

function signedInId(request: AppRequest): string {
  if (request.caller.kind !== 'user') throw unauthorized('Log in first: send Authorization: Bearer <token>.');
  return String(request.caller.user.id);
}

const codeOf = (body: unknown): string => {
  const code = (body as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : '';
};

export function accountProviderRoutes(options: AccountProviderOptions): RouteSource {
  const { db, auth, afterCommit, mfa, limits, origins } = options;
  const perAddress = limits.authPerMinute > 0 ? new MinuteCounter(limits.authPerMinute) : null;
  const perAccount = limits.authPerMinute > 0 ? new MinuteCounter(MFA_ATTEMPTS_PER_MINUTE) : null;

  /** The 429 answer when `key` is past its minute on `counter`, else null. */
  const refusal = (counter: MinuteCounter | null, key: string, what: string): AppResponse | null => {
    const count = counter?.hit(key);
    return count?.exceeded ? tooManyAnswer(count.resetSeconds, `More than ${count.limit} ${what} in a minute.`) : null;
  };
  /** Runs `handler` unless the address (and `account`, when named) is past its minute. */
  const limited = (handler: (request: AppRequest) => Promise<AppResponse>, account?: (request: AppRequest) => Promise<string | null>) =>
    async (request: AppRequest): Promise<AppResponse> => {
      const byAddress = refusal(perAddress, `${request.app.applicationId} ${addressKey(request.address ?? '')}`, 'sign-in attempts from this address');
      if (byAddress) return byAddress;
      const key = account ? await account(request) : null;
      const byAccount = key === null ? null : refusal(perAccount, `${request.app.applicationId} ${key}`, 'code attempts for this account');
      return byAccount ?? handler(request);
    };

  return (app) => {
    if (!app.userModel) return [];
    return [
      {
        method: 'GET',
        path: '/auth/providers',
        handler: limited(async (request) => {
          const place = placeOf(request, origins);
          const items = providersOf(request.values).map((p) => ({
            name: p.name,
            displayName: p.displayName ?? p.name,
            startUrl: `${place.versionUrl}/auth/oauth/${p.name}`,
            callbackUrl: callbackUrl(place, p.name),
          }));
          return { status: 200, body: { items } };
        }),
      },
      {
        method: 'GET',
        path: '/auth/oauth/:provider',
        handler: limited(async (request) => {
          const started = await startSignIn(db, placeOf(request, origins), request.params.provider, request.query.redirect);
          // The state cookie is the service's own (scoped to this app's callback), not a builder's.
          return { status: 302, headers: { location: started.location, 'cache-control': 'no-store' }, serviceHeaders: { 'set-cookie': started.cookie } };
        }),
      },
      {
        method: 'GET',
        path: '/auth/oauth/:provider/callback',
        handler: limited(async (request) => {
          const place = placeOf(request, origins);
          const cookie = request.headers.cookie;
          const result = await finishSignIn(db, place, request.params.provider, request.query, Array.isArray(cookie) ? cookie.join('; ') : cookie);
          const user = await userForIdentity(db, afterCommit, request.app, result.identity);
          const answer = await mfa.signIn(auth.sessionContext(request.app, request.filesUrl), user);
          const headers = { 'cache-control': 'no-store' };
          const serviceHeaders = { 'set-cookie': result.clearCookie };
          if (result.redirect === null) return { status: 200, body: answer, headers, serviceHeaders };
          // Tokens in the fragment: the browser keeps it to itself (never sent to a server, nor in a Referer).
          const fragment = new URLSearchParams(
            isChallenge(answer) ? { mfaRequired: 'true', mfaToken: answer.mfaToken } : { token: answer.token, refreshToken: answer.refreshToken },
          );
          return { status: 302, headers: { ...headers, location: `${result.redirect}#${fragment.toString()}` }, serviceHeaders };
        }),
      },
      {
        method: 'POST',
        path: '/auth/mfa',
        handler: limited(
          async (request) => ({ status: 200, body: await mfa.complete(auth.sessionContext(request.app, request.filesUrl), request.body) }),
          async (request) => {
            const token = (request.body as { mfaToken?: unknown } | null)?.mfaToken;
            return typeof token === 'string' ? mfa.subjectOf(request.app, token) : null;
          },
        ),
      },
      {
        method: 'POST',
        path: '/auth/mfa/totp/enroll',
        handler: limited(async (request) => {
          const userId = signedInId(request);
          const email = request.caller.kind === 'user' ? request.caller.user.email : undefined;
          return { status: 200, body: await mfa.totp.enroll(request.app, userId, typeof email === 'string' ? email : userId) };
        }, async (request) => signedInId(request)),
      },
      {
        method: 'POST',
        path: '/auth/mfa/totp/verify',
        handler: limited(
          async (request) => ({ status: 200, body: { recoveryCodes: await mfa.totp.activate(request.app, signedInId(request), codeOf(request.body)) } }),
          async (request) => signedInId(request),
        ),
      },
      {
        method: 'POST',
        path: '/auth/mfa/totp/disable',
        handler: limited(async (request) => {
          await mfa.totp.disable(request.app, signedInId(request), codeOf(request.body));
          return { status: 204 };
        }, async (request) => signedInId(request)),
      },
    ];
  };
}

/** A 429 problem answer with `Retry-After` (a thrown problem carries no headers). */
function tooManyAnswer(retryAfterSeconds: number, detail: string): AppResponse {
  return {
    status: 429,
    body: JSON.stringify(tooManyRequests(null, retryAfterSeconds, detail).toJSON()),
    headers: { 'content-type': 'application/problem+json', 'retry-after': String(retryAfterSeconds) },
  };
}
