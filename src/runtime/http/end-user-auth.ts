import { randomBytes } from 'node:crypto';
import { jwtVerify } from 'jose';
import { sql } from 'kysely';
import type { Db } from '../../storage/db.ts';
import { ident } from '../../storage/sql.ts';
import { Problem, conflict, notFound, unauthorized, unprocessable } from '../../errors.ts';
import { hashSecret, verifySecret } from '../../tools/secrets.ts';
import type { AppKeys } from '../app-keys.ts';
import { AfterCommit } from './after-commit.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { createRecord } from '../writes/records.ts';
import { checkSignupRules } from '../writes/signup-rules.ts';
import type { JsonRecord } from '../data/read.ts';
import { getOwnRecord } from '../data/own-record.ts';
import { readPlainRecord, type PlainRecord } from '../writes/plain-record.ts';
import { CREDENTIALS_TABLE } from '../schema-extras.ts';
import { endUserCache } from '../end-user-cache.ts';
import { accessTokenLive, DEFAULT_SESSION_SETTINGS, issueSession, type AccessClaims, type IssuedSession, type SessionContext, type SessionSettings } from '../accounts/sessions.ts';
import { requireVerified, verifiedField } from '../accounts/verified.ts';
import { checkPasswordLength } from '../accounts/password-policy.ts';


export type Session = IssuedSession;

/**
 * Sign-up is anonymous and runs as the system, so it may not set relationships: those would link
 * (or, stored on the other side, take over) records the new user has no right to.
 */
function refuseRelationships(model: CompiledModel, input: Record<string, unknown>): void {
  const errors = model.fields
    .filter((field) => field.relation && Object.hasOwn(input, field.name))
    .map((field) => ({ path: `/${field.name}`, message: 'cannot be set at sign-up; set it once logged in' }));
  if (errors.length > 0) throw unprocessable('Sign-up takes the user\'s own fields only.', errors);
}

function userModelOf(app: CompiledApp): CompiledModel {
  if (!app.userModel) throw notFound('This application has no user model, so no end-user accounts.');
  return app.userModel;
}

function emailColumn(model: CompiledModel): string {
  const email = model.fieldsByName.get('email');
  if (!email?.column) throw notFound('The user model has no email field.');
  return email.column;
}

const MAX_VERIFIED_TOKENS = 10_000;

/** What a password sent for an unknown email is checked against (it matches nothing anyone can send). */
const UNKNOWN_EMAIL_HASH = hashSecret(randomBytes(32).toString('base64url'));

/** End users of a generated app: sign-up, log-in, and the tokens that carry them (JWT, per-app key). */
export class EndUserAuth {
  /** Tokens whose signature was checked: app and token → subject and expiry (seconds). */
  readonly #verified = new Map<string, { claims: AccessClaims; exp: number }>();

  constructor(
    private readonly db: Db,
    private readonly keys: AppKeys,
    /** Announces the sign-up's commit, so its `{User}.created` event is dispatched at once. */
    private readonly afterCommit: AfterCommit = new AfterCommit(),
    /** Token lifetimes (APPBUILDER_APP_TOKEN_TTL, APPBUILDER_APP_REFRESH_TTL). */
    readonly sessions: SessionSettings = DEFAULT_SESSION_SETTINGS,
  ) {}

  /** What the account routes (accounts/*.ts) need to issue or end sessions of `app`'s users. */
  sessionContext(app: CompiledApp, filesUrl?: string): SessionContext {
    return { db: this.db, keys: this.keys, app, settings: this.sessions, ...(filesUrl === undefined ? {} : { filesUrl }) };
  }

  async signup(app: CompiledApp, body: unknown, filesUrl?: string): Promise<Session> {
    return issueSession(this.sessionContext(app, filesUrl), await this.createUser(app, body));
  }

  /** The account of a sign-up (its record and password), without a session; 409 when the email is taken. */
  async createUser(app: CompiledApp, body: unknown): Promise<PlainRecord> {
    const model = userModelOf(app);
    const input = { ...(body as Record<string, unknown>) };
    const password = input.password;
    delete input.password;
    refuseRelationships(model, input);
    if (verifiedField(app) && Object.hasOwn(input, 'verified')) {
      throw unprocessable('An address is verified by the link of the verification mail, not at sign-up.', [{ path: '/verified', message: 'cannot be set at sign-up' }]);
    }
    checkPasswordLength(password);
    if (typeof input.email === 'string') input.email = input.email.trim().toLowerCase();
    const hash = await hashSecret(password);
    return this.afterCommit.run(this.db, async (trx) => {
      // The row is written as the system, then judged as nobody signed in would be, or as the new
      // user before anything they sent (signup-rules.ts): never with `auth` built from the request.
      const created = await createRecord(trx, app, model, input, { kind: 'system' });
      await checkSignupRules(trx, app, model, created, Object.keys(input));
      // Last, after every other check and the same writes (rolled back): a body refused for another
      // reason says nothing about the email, and the time taken differs little.
      const taken = await sql`select 1 from ${ident(app.schema, model.table)} where lower(${ident(emailColumn(model))}) = ${input.email ?? ''} and id <> ${created.id}`.execute(trx);
      if (taken.rows.length > 0) throw conflict('This email is already registered.', [{ path: '/email', message: 'is already registered' }]);
      await sql`insert into ${ident(app.schema, CREDENTIALS_TABLE)} (user_id, password_hash) values (${created.id}, ${hash})`.execute(trx);
      return created;
    });
  }

  /** `env`: the app's variables now (`AUTH_REQUIRE_VERIFIED`, accounts/verified.ts). */
  async login(app: CompiledApp, body: unknown, filesUrl?: string, env: Record<string, string> = {}): Promise<Session> {
    const model = userModelOf(app);
    const { email, password } = (body ?? {}) as { email?: unknown; password?: unknown };
    if (typeof email !== 'string' || typeof password !== 'string') {
      throw new Problem(400, 'Send email and password.', [{ path: typeof email !== 'string' ? '/email' : '/password', message: 'is required' }]);
    }
    const found = await sql<{ id: string; password_hash: string }>`
      select u.id, c.password_hash from ${ident(app.schema, model.table)} u
      join ${ident(app.schema, CREDENTIALS_TABLE)} c on c.user_id = u.id
      where lower(u.${ident(emailColumn(model))}) = ${email.trim().toLowerCase()}`.execute(this.db.kysely);
    const row = found.rows[0];
    // One answer for an unknown email and a wrong password, in the same time: a hash is checked either way.
    const valid = await verifySecret(password, row?.password_hash ?? (await UNKNOWN_EMAIL_HASH));
    if (!row || !valid) throw unauthorized('The email or the password is not right.');
    const user = (await readPlainRecord(this.db.kysely, app, model, row.id))!;
    requireVerified(app, user, env);
    return issueSession(this.sessionContext(app, filesUrl), user);
  }

  /**
   * The end user's own record as they may read it, read whole from the table (`user` may be the
   * partial `auth` of a request: only its id and, for the field rules, what they read are used).
   * File fields read as URLs under `filesUrl` (the version's files route) when given.
   */
  async profile(app: CompiledApp, user: PlainRecord, filesUrl?: string): Promise<JsonRecord> {
    return (await getOwnRecord(this.db, app, userModelOf(app), user, this.db.kysely, filesUrl)) ?? { id: user.id };
  }

  /** The end user a bearer token names, or null when the token is not this app's or the user is gone. */
  async verify(app: CompiledApp, token: string): Promise<PlainRecord | null> {
    return (await this.verifyWithClaims(app, token))?.user ?? null;
  }

  /** `verify`, with the token's claims (realtime keeps them to check the connection again: `stillLive`). */
  async verifyWithClaims(app: CompiledApp, token: string): Promise<{ user: PlainRecord; claims: AccessClaims } | null> {
    if (!app.userModel) return null;
    try {
      const claims = await this.claims(app, token);
      if (claims === null) return null;
      const user = await this.stillLive(app, claims);
      return user ? { user, claims } : null;
    } catch {
      return null;
    }
  }

  /**
   * The end user of claims verified before, while the token still stands: the user exists and the
   * token was not revoked. The signature needs no second look; expiry is the caller's to watch.
   */
  async stillLive(app: CompiledApp, claims: AccessClaims): Promise<PlainRecord | null> {
    // Only what the app's expressions read of `auth` (auth-reads.ts), kept between requests while
    // the user row is unchanged (end-user-cache.ts); a deleted user's token stops working.
    const user = await endUserCache.load(this.db.kysely, app, claims.sub);
    // Logged out (everywhere), or the password was reset: refused before it expires (accounts/sessions.ts).
    if (!user || !(await accessTokenLive(this.db, app, user, claims, this.sessions.accessTtlSeconds))) return null;
    return user;
  }

  /**
   * The claims of a valid token (signature and expiry; not revocation, which `verify` checks), or
   * null. A signature once checked is remembered (a client sends the same token on every request;
   * the check is a few per cent of a trigger's CPU); expiry is checked each time.
   */
  async claims(app: CompiledApp, token: string): Promise<AccessClaims | null> {
    const cacheKey = `${app.applicationId} ${token}`;
    const known = this.#verified.get(cacheKey);
    if (known) {
      if (known.exp > Math.floor(Date.now() / 1000)) return known.claims;
      this.#verified.delete(cacheKey);
    }
    const key = await this.keys.jwtKey(app.applicationId);
    let payload;
    try {
      ({ payload } = await jwtVerify(token, key, { audience: `app:${app.applicationId}`, algorithms: ['HS256'] }));
    } catch {
      return null;
    }
    if (typeof payload.sub !== 'string') return null;
    const claims: AccessClaims = {
      sub: payload.sub,
      ...(typeof payload.sid === 'string' ? { sid: payload.sid } : {}),
      issuedAtMs: typeof payload.ims === 'number' ? payload.ims : (payload.iat ?? 0) * 1000,
      ...(typeof payload.auth_time === 'number' ? { signedInAtMs: payload.auth_time * 1000 } : {}),
    };
    if (typeof payload.exp === 'number' && payload.nbf === undefined) {
      if (this.#verified.size >= MAX_VERIFIED_TOKENS) this.#verified.clear();
      this.#verified.set(cacheKey, { claims, exp: payload.exp });
    }
    return claims;
  }
}
