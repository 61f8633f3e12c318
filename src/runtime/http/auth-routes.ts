import { Problem, unauthorized } from '../../errors.ts';
import type { EndUserAuth } from './end-user-auth.ts';
import type { MfaGate } from '../accounts/mfa.ts';
import type { AccountEmails } from '../accounts/email-flows.ts';
import { LoginThrottle } from './login-throttle.ts';
import { NO_RATE_LIMITS } from './rate-limits.ts';
import type { RouteSource } from './router.ts';
import type { AppRequest, AppResponse } from './types.ts';

/** The app variable that makes sign-up answer the same whether or not the email is registered. */
export const SIGNUP_NEUTRAL_VARIABLE = 'SIGNUP_NEUTRAL';
/** The one answer of a neutral sign-up. */
export const SIGNUP_QUEUED = { message: 'Check your mail to finish signing up.' };

/**
 * A sign-up that tells nobody whether the email is registered (SIGNUP_NEUTRAL=true): a new account
 * is made and mailed a verification link, a registered address is mailed a notice; both answer
 * 202 with the same body, and neither answers a session (log in afterwards). Everything else the
 * body could be refused for is checked before the email (EndUserAuth.createUser).
 */
async function neutralSignup(auth: EndUserAuth, emails: AccountEmails, request: AppRequest): Promise<AppResponse> {
  // 503 before anything when the app cannot mail: the same for every address.
  emails.checkMail(request);
  try {
    const user = await auth.createUser(request.app, request.body);
    emails.signupMail(request, { userId: String(user.id) });
  } catch (error) {
    if (!(error instanceof Problem && error.status === 409 && error.errors.some((e) => e.path === '/email'))) throw error;
    const email = (request.body as { email?: unknown }).email;
    emails.signupMail(request, { email: String(email).trim().toLowerCase() });
  }
  return { status: 202, body: SIGNUP_QUEUED };
}

/** `POST /auth/signup`, `POST /auth/login`, `GET /auth/me` for apps with a user model. */
/** `mfa`: a user with a second factor is answered `{mfaRequired, mfaToken}` instead of a session (accounts/mfa.ts). */
/** `emails`: the mails of a neutral sign-up (SIGNUP_NEUTRAL); without them sign-up answers 409 for a registered email. */
export function authRoutes(auth: EndUserAuth, throttle = new LoginThrottle(NO_RATE_LIMITS), mfa?: MfaGate, emails?: AccountEmails): RouteSource {
  return (app) => {
    if (!app.userModel) return [];
    return [
      {
        method: 'POST',
        path: '/auth/signup',
        handler: (request) =>
          throttle.signup(request.address ?? '', async () => {
            if (emails && request.values?.env[SIGNUP_NEUTRAL_VARIABLE] === 'true') return neutralSignup(auth, emails, request);
            return { status: 201, body: await auth.signup(request.app, request.body, request.filesUrl) };
          }),
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
