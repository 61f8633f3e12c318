// Sign-in with an OpenID Connect provider (DESIGN §18), the authorization-code flow with PKCE
// (S256), `state` and `nonce`, through `openid-client`:
// - start: a random state, verifier and nonce; the row (by the state's sha256) is kept ten minutes
//   in the control plane (any process may take the callback), and the state itself goes to the
//   browser in an httpOnly cookie scoped to the callback path: the callback must come back in
//   the browser that started it (no login CSRF by handing someone a callback URL). Start and
//   callback answer on the app's own origin only, and send tokens nowhere but to it or the
//   origins its AUTH_REDIRECT_ORIGINS lists.
// - callback: the state must match the cookie and a live row, which is deleted (single use);
//   the code is exchanged with the verifier, the ID token validated (issuer, audience, signature,
//   nonce) by openid-client; then the linked user, else the user with that email when the
//   provider says it is verified, else a new user.
import { createHash } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import { sql } from 'kysely';
import type { Db, Executor } from '../../storage/db.ts';
import { ident } from '../../storage/sql.ts';
import { Problem, badRequest, forbidden, notFound, unauthorized, unprocessable } from '../../errors.ts';
import type { AppValues } from '../../secrets/app-values.ts';
import type { AfterCommit } from '../http/after-commit.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { createRecord } from '../writes/records.ts';
import { checkSignupRules } from '../writes/signup-rules.ts';
import { readPlainRecord, type PlainRecord } from '../writes/plain-record.ts';
import { allowedRedirectOrigins, configurationOf, httpOrigin, loadOpenIdClient, providerNamed, type Provider } from './providers.ts';

const STATE_TTL_SECONDS = 600;
export const STATE_COOKIE = 'appbuilder_oidc_state';
const DEFAULT_SCOPES = ['openid', 'email', 'profile'];

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

/** Where a flow runs: the version's base URL on the app's own origin (`http://{id}.localhost:8080/api/v1.0.0`) and the app's values. */
export interface FlowPlace {
  app: CompiledApp;
  /** Built from configuration (tools/app-origin.ts), never from the request: the provider's callback and the redirects' origin. */
  versionUrl: string;
  values?: AppValues;
  /** Whether the request came to the app's own origin (its `Host`): the flow's cookie and redirects live there only. */
  onOwnOrigin: boolean;
}

/**
 * The start and the callback answer on the app's own origin only: the state cookie they set and
 * read, and the browser they send back with tokens, belong to that origin, never to the shared
 * one every customer's app answers on.
 */
function requireOwnOrigin(place: FlowPlace, url: string): void {
  if (!place.onOwnOrigin) throw notFound(`Sign-in with a provider is answered on the application's own origin only: ${url}`, '/host');
}

export const callbackUrl = (place: FlowPlace, provider: string) => `${place.versionUrl}/auth/oauth/${provider}/callback`;

function stateCookie(place: FlowPlace, provider: string, value: string, maxAge: number): string {
  const url = new URL(callbackUrl(place, provider));
  return stringifySetCookie({ name: STATE_COOKIE, value, path: url.pathname, httpOnly: true, sameSite: 'lax', secure: url.protocol === 'https:', maxAge });
}

/**
 * `redirect` of a start, where the callback sends the browser with the session's tokens: an
 * absolute http(s) URL on the application's own origin (`ownOrigin`) or one its
 * AUTH_REDIRECT_ORIGINS variable lists; anything else is a 400 naming `/redirect` (another
 * customer's app on the shared origin or on its own would receive the tokens).
 */
export function checkedRedirect(redirect: unknown, ownOrigin: string, values: AppValues | undefined): string | null {
  if (redirect === undefined || redirect === '') return null;
  const refuse = (message: string) => badRequest('The redirect is not allowed.', [{ path: '/redirect', message }]);
  if (typeof redirect !== 'string') throw refuse('must be one URL');
  const origin = httpOrigin(redirect);
  if (!origin) throw refuse('must be an absolute http(s) URL');
  const allowed = allowedRedirectOrigins(values, ownOrigin);
  if (!allowed.has(origin)) throw refuse(`must be on ${[...allowed].join(' or ')} (list more origins in the AUTH_REDIRECT_ORIGINS variable)`);
  const url = new URL(redirect);
  url.hash = '';
  return url.toString();
}

/** `GET /auth/oauth/{provider}`: where to send the browser, and the cookie that binds the state to it. */
export async function startSignIn(db: Db, place: FlowPlace, providerName: string, redirect: unknown): Promise<{ location: string; cookie: string }> {
  const provider = providerNamed(place.values, providerName);
  const target = checkedRedirect(redirect, new URL(place.versionUrl).origin, place.values);
  requireOwnOrigin(place, `${place.versionUrl}/auth/oauth/${provider.name}`);
  const config = await configurationOf(place.app.applicationId, provider);
  const client = await loadOpenIdClient();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const verifier = client.randomPKCECodeVerifier();
  await sql`delete from appbuilder.end_user_oauth_states where application_id = ${place.app.applicationId} and expires_at < now()`.execute(db.kysely);
  await sql`insert into appbuilder.end_user_oauth_states (state_hash, application_id, provider, code_verifier, nonce, redirect, expires_at)
    values (${sha256(state)}, ${place.app.applicationId}, ${provider.name}, ${verifier}, ${nonce}, ${target},
      now() + make_interval(secs => ${STATE_TTL_SECONDS}))`.execute(db.kysely);
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: callbackUrl(place, provider.name),
    scope: (provider.scopes ?? DEFAULT_SCOPES).join(' '),
    response_type: 'code',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { location: url.toString(), cookie: stateCookie(place, provider.name, state, STATE_TTL_SECONDS) };
}

/** The identity the provider vouched for. */
export interface ProviderIdentity {
  provider: string;
  subject: string;
  email?: string;
  emailVerified: boolean;
  name?: string;
}

export interface CallbackResult {
  identity: ProviderIdentity;
  /** Where the browser goes with the session (from the start), or null: answer JSON. */
  redirect: string | null;
  /** Clears the state cookie. */
  clearCookie: string;
}

function queryString(query: Record<string, string | string[] | undefined>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) params.append(name, one);
  }
  return params;
}

/** `GET /auth/oauth/{provider}/callback`: checks the state, exchanges the code, validates the ID token. */
export async function finishSignIn(
  db: Db,
  place: FlowPlace,
  providerName: string,
  query: Record<string, string | string[] | undefined>,
  cookieHeader: string | undefined,
): Promise<CallbackResult> {
  const provider = providerNamed(place.values, providerName);
  requireOwnOrigin(place, callbackUrl(place, provider.name));
  const params = queryString(query);
  const state = params.get('state');
  const fromCookie = cookieHeader ? parseCookie(cookieHeader)[STATE_COOKIE] : undefined;
  if (!state || !fromCookie || state !== fromCookie) {
    throw badRequest('The sign-in cannot be finished: its state does not match the one this browser started.', [
      { path: '/state', message: state ? 'does not match the sign-in started in this browser' : 'is required' },
    ]);
  }
  const taken = await sql<{ code_verifier: string; nonce: string; redirect: string | null }>`
    delete from appbuilder.end_user_oauth_states
    where state_hash = ${sha256(state)} and application_id = ${place.app.applicationId} and provider = ${provider.name} and expires_at > now()
    returning code_verifier, nonce, redirect`.execute(db.kysely);
  const started = taken.rows[0];
  if (!started) throw badRequest('The sign-in expired or was already finished; start it again.', [{ path: '/state', message: 'names no live sign-in' }]);
  const providerError = params.get('error');
  if (providerError) throw unauthorized(`The provider refused the sign-in: ${providerError}${params.get('error_description') ? ` (${params.get('error_description')})` : ''}.`);
  const config = await configurationOf(place.app.applicationId, provider);
  const client = await loadOpenIdClient();
  const current = new URL(callbackUrl(place, provider.name));
  current.search = params.toString();
  let claims: Record<string, unknown> & { sub: string };
  try {
    const tokens = await client.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: started.code_verifier,
      expectedState: state,
      expectedNonce: started.nonce,
      idTokenExpected: true,
    });
    const idToken = tokens.claims();
    if (!idToken) throw unauthorized('The provider answered no ID token.');
    claims = idToken;
    // Many providers put email and name in the ID token; others (and oidc-provider by default) only at userinfo.
    if (claims.email === undefined && config.serverMetadata().userinfo_endpoint) {
      claims = { ...idToken, ...(await client.fetchUserInfo(config, tokens.access_token, idToken.sub)), sub: idToken.sub };
    }
  } catch (error) {
    if (error instanceof Problem) throw error;
    throw unauthorized(`The provider's answer could not be verified: ${(error as Error).message}`);
  }
  return {
    identity: {
      provider: provider.name,
      subject: claims.sub,
      ...(typeof claims.email === 'string' ? { email: claims.email.trim().toLowerCase() } : {}),
      emailVerified: claims.email_verified === true,
      ...(typeof claims.name === 'string' ? { name: claims.name } : {}),
    },
    redirect: started.redirect,
    clearCookie: stateCookie(place, provider.name, '', 0),
  };
}

function emailColumn(model: CompiledModel): string {
  const email = model.fieldsByName.get('email');
  if (!email?.column) throw unprocessable('The user model has no email field, so no provider sign-in.');
  return email.column;
}

/** The fields of a new user the provider can fill: email, a `name`, a `verified` flag. */
function newUserInput(model: CompiledModel, identity: ProviderIdentity & { email: string }): Record<string, unknown> {
  const input: Record<string, unknown> = { email: identity.email };
  const name = model.fieldsByName.get('name');
  if (identity.name && name?.column && name.to === 'p_TEXT' && !name.many) input.name = identity.name;
  const verified = model.fieldsByName.get('verified');
  if (verified?.column && verified.to === 'p_BOOLEAN' && !verified.many) input.verified = true;
  const missing = model.fields.filter(
    (f) => f.required && f.column && !f.relation && f.computed === undefined && f.defaultValue == null && f.defaultExpression === undefined && !(f.name in input),
  );
  if (missing.length > 0) {
    throw unprocessable(
      'The user model requires fields the provider does not give, so this provider cannot sign new users up; sign up with a password first, then sign in with the provider (linked by a verified email).',
      missing.map((f) => ({ path: `/${f.name}`, message: 'is required by the user model and not given by the provider' })),
    );
  }
  return input;
}

async function link(executor: Executor, app: CompiledApp, identity: ProviderIdentity, userId: string): Promise<void> {
  await sql`insert into appbuilder.end_user_identities (application_id, provider, subject, user_id, email)
    values (${app.applicationId}, ${identity.provider}, ${identity.subject}, ${userId}, ${identity.email ?? null})
    on conflict (application_id, provider, subject) do update set user_id = excluded.user_id, email = excluded.email`.execute(executor);
}

/**
 * The user a provider identity signs in: the one linked before; else the user whose email the
 * provider verified (linked now); else a new user (linked). An unverified email neither links nor
 * signs up: whoever holds the provider account may not own the address.
 */
export async function userForIdentity(db: Db, afterCommit: AfterCommit, app: CompiledApp, identity: ProviderIdentity): Promise<PlainRecord> {
  const model = app.userModel;
  if (!model) throw unprocessable('This application has no user model, so no end-user accounts.');
  const linked = await sql<{ user_id: string }>`select user_id from appbuilder.end_user_identities
    where application_id = ${app.applicationId} and provider = ${identity.provider} and subject = ${identity.subject}`.execute(db.kysely);
  if (linked.rows[0]) {
    const user = await readPlainRecord(db.kysely, app, model, linked.rows[0].user_id);
    if (user) return user;
  }
  const email = identity.email;
  if (!email) throw unprocessable('The provider gave no email for this account; the application signs users in by email.', [{ path: '/email', message: 'not given by the provider (ask for the email scope)' }]);
  if (!identity.emailVerified) throw forbidden('The provider has not verified this account\'s email, so it can neither be linked to an account nor sign one up. Verify the email at the provider first.');
  return afterCommit.run(db, async (trx) => {
    const existing = await sql<{ id: string }>`select id from ${ident(app.schema, model.table)} where lower(${ident(emailColumn(model))}) = ${email} limit 1`.execute(trx);
    if (existing.rows[0]) {
      await link(trx, app, identity, existing.rows[0].id);
      return (await readPlainRecord(trx, app, model, existing.rows[0].id))!;
    }
    const input = newUserInput(model, { ...identity, email });
    // As a password sign-up: written as the system, judged by the sign-up rules (writes/signup-rules.ts).
    const created = await createRecord(trx, app, model, input, { kind: 'system' });
    await checkSignupRules(trx, app, model, created, Object.keys(input));
    await link(trx, app, identity, created.id);
    return created;
  });
}

/** The user's linked providers (for `GET /auth/me`-like answers and tests). */
export async function identitiesOf(db: Db, app: CompiledApp, userId: string): Promise<Array<{ provider: string; subject: string }>> {
  const rows = await sql<{ provider: string; subject: string }>`select provider, subject from appbuilder.end_user_identities
    where application_id = ${app.applicationId} and user_id = ${userId} order by provider, subject`.execute(db.kysely);
  return rows.rows;
}

export type { Provider };
