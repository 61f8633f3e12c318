import { unauthorized } from '../../errors.ts';
import type { EndUserAuth } from './end-user-auth.ts';
import type { MfaGate } from '../accounts/mfa.ts';
import { LoginThrottle } from './login-throttle.ts';
import { NO_RATE_LIMITS } from './rate-limits.ts';
import type { RouteSource } from './router.ts';

/** `POST /auth/signup`, `POST /auth/login`, `GET /auth/me` for apps with a user model. */
/** `mfa`: a user with a second factor is answered `{mfaRequired, mfaToken}` instead of a session (accounts/mfa.ts). */
export function authRoutes(auth: EndUserAuth, throttle = new LoginThrottle(NO_RATE_LIMITS), mfa?: MfaGate): RouteSource {
  return (app) => {
    if (!app.userModel) return [];
    return [
      {
        method: 'POST',
        path: '/auth/signup',
        handler: (request) => throttle.signup(request.address ?? '', async () => ({ status: 201, body: await auth.signup(request.app, request.body, request.filesUrl) })),
      },
      {
        method: 'POST',
        path: '/auth/login',
        handler: (request) =>
          throttle.login(request.app, request.address ?? '', request.body, async () => {
            const session = await auth.login(request.app, request.body, request.filesUrl, request.values?.env);
            return { status: 200, body: mfa ? await mfa.afterLogin(request.app, session) : session };
          }),
      },
      {
        method: 'GET',
        path: '/auth/me',
        handler: async (request) => {
          if (request.caller.kind !== 'user') throw unauthorized('Log in first: send Authorization: Bearer <token>.');
          return { status: 200, body: await auth.profile(request.app, request.caller.user, request.filesUrl) };
        },
      },
    ];
  };
}
