// End-user sessions of generated apps (DESIGN §18): a short-lived access token (JWT, the app's own
// key) plus a refresh token that rotates on every use. Each sign-in starts a family of refresh
// tokens (`appbuilder.end_user_sessions`, migration 014); a refresh token is random, stored only as
// its sha256, and used once: presenting a used one again means it was stolen (or replayed), so the
// whole family is revoked, its newest token included.
//
// Access tokens cannot be recalled once handed out, so the auth path asks `accessTokenLive`:
// refused when issued before the user's `tokens_valid_after` (logout everywhere, password reset) or
// when its session was logged out. What it reads is kept per `auth` object of the end-user cache
// (end-user-cache.ts): every revocation notifies the user's channel in its transaction, which makes
// every process forget the user, so the next request reads the revocations again.
import { createHash, randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { sql } from 'kysely';
import type { Db, Executor } from '../../storage/db.ts';
import { unauthorized } from '../../errors.ts';
import { uuidv7 } from '../../tools/ids.ts';
import type { AppKeys } from '../app-keys.ts';
import type { CompiledApp } from '../compiled-app.ts';
import { forgetUser, USERS_CHANNEL } from '../end-user-cache.ts';
import { getOwnRecord } from '../data/own-record.ts';
import type { JsonRecord } from '../data/read.ts';
import { readPlainRecord, type PlainRecord } from '../writes/plain-record.ts';
import { DEFAULT_ACCOUNT_SETTINGS } from './settings.ts';

export interface SessionSettings {
  /** APPBUILDER_APP_TOKEN_TTL: lifetime of an access token, seconds (default 900). */
  accessTtlSeconds: number;
  /** APPBUILDER_APP_REFRESH_TTL: a session ends this long after its last refresh, seconds (default 30 days). */
  refreshTtlSeconds: number;
}

export const DEFAULT_SESSION_SETTINGS: SessionSettings = {
  accessTtlSeconds: DEFAULT_ACCOUNT_SETTINGS.accessTtlSeconds,
  refreshTtlSeconds: DEFAULT_ACCOUNT_SETTINGS.refreshTtlSeconds,
};

/** What a route handler has at hand to issue or end sessions (EndUserAuth.sessionContext gives it). */
export interface SessionContext {
  db: Db;
  keys: AppKeys;
  app: CompiledApp;
  settings: SessionSettings;
  /** The version's files route: file fields of `user` read as URLs under it. */
  filesUrl?: string;
}

/** What log-in, sign-up, refresh, an OIDC callback and MFA completion answer. */
export interface IssuedSession {
  token: string;
  refreshToken: string;
  user: JsonRecord;
}

/** The claims of a verified access token that revocation looks at. */
export interface AccessClaims {
  sub: string;
  /** The session (refresh family) the token belongs to; absent on tokens from before sessions. */
  sid?: string;
  /** Issue time in milliseconds (`iat` is whole seconds: a reset and a new log-in may share one). */
  issuedAtMs: number;
  /** When the session's user signed in (`auth_time`, kept across refreshes), ms; absent on older tokens. */
  signedInAtMs?: number;
}

export const sha256 = (value: string): string => createHash('sha256').update(value).digest('base64url');
export const randomToken = (): string => randomBytes(32).toString('base64url');

/** `signedInAtMs`: the session's sign-in (`auth_time`, whole seconds as OpenID Connect has it), not the refresh. */
async function signAccessToken(ctx: SessionContext, userId: string, sessionId: string, signedInAtMs: number): Promise<string> {
  return new SignJWT({ sid: sessionId, ims: Date.now(), auth_time: Math.floor(signedInAtMs / 1000) })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(userId)
    .setAudience(`app:${ctx.app.applicationId}`)
    .setIssuedAt()
    .setExpirationTime(`${ctx.settings.accessTtlSeconds}s`)
    .sign(await ctx.keys.jwtKey(ctx.app.applicationId));
}

async function profileOf(ctx: SessionContext, user: PlainRecord): Promise<JsonRecord> {
  if (!ctx.app.userModel) return { id: user.id };
  return (await getOwnRecord(ctx.db, ctx.app, ctx.app.userModel, user, ctx.db.kysely, ctx.filesUrl)) ?? { id: user.id };
}

async function newRefreshToken(executor: Executor, sessionId: string): Promise<string> {
  const token = `rt_${randomToken()}`;
  await sql`insert into appbuilder.end_user_refresh_tokens (token_hash, session_id) values (${sha256(token)}, ${sessionId})`.execute(executor);
  return token;
}

/** Issues an access token and a new refresh-token family for `user`: what log-in, OIDC callback and MFA completion all answer. */
export async function issueSession(ctx: SessionContext, user: PlainRecord): Promise<IssuedSession> {
  const sessionId = uuidv7();
  const signedInAt = new Date();
  const refreshToken = await ctx.db.kysely.transaction().execute(async (trx) => {
    await sql`insert into appbuilder.end_user_sessions (id, application_id, user_id, created_at, expires_at)
      values (${sessionId}, ${ctx.app.applicationId}, ${user.id}, ${signedInAt}, now() + make_interval(secs => ${ctx.settings.refreshTtlSeconds}))`.execute(trx);
    return newRefreshToken(trx, sessionId);
  });
  return { token: await signAccessToken(ctx, user.id, sessionId, signedInAt.getTime()), refreshToken, user: await profileOf(ctx, user) };
}

const STOLEN = 'This refresh token was already used, so it may have been stolen: its session is ended. Log in again.';
const REFUSED = 'The refresh token is not valid (unknown, expired or logged out). Log in again.';

/**
 * `POST /auth/refresh`: the refresh token is exchanged for a new pair. A token used before ends its
 * whole session (answered 401 after that is committed).
 */
export async function refreshSession(ctx: SessionContext, refreshToken: string): Promise<IssuedSession> {
  const outcome = await ctx.db.kysely.transaction().execute(async (trx) => {
    // The row lock orders two refreshes with the same token: the second one sees it used.
    const found = await sql<{ session_id: string; used: boolean; user_id: string; live: boolean; created_at: Date | string }>`
      select t.session_id, t.used_at is not null as used, s.user_id, s.created_at,
        (s.revoked_at is null and s.expires_at > now()) as live
      from appbuilder.end_user_refresh_tokens t join appbuilder.end_user_sessions s on s.id = t.session_id
      where t.token_hash = ${sha256(refreshToken)} and s.application_id = ${ctx.app.applicationId}
      for update of t, s`.execute(trx);
    const row = found.rows[0];
    if (!row || !row.live) return { refused: REFUSED } as const;
    if (row.used) {
      await revokeSessions(trx, ctx.app, row.user_id, row.session_id);
      return { refused: STOLEN, userId: row.user_id } as const;
    }
    const user = ctx.app.userModel ? await readPlainRecord(trx, ctx.app, ctx.app.userModel, row.user_id) : undefined;
    if (!user) {
      await revokeSessions(trx, ctx.app, row.user_id, row.session_id);
      return { refused: REFUSED } as const;
    }
    await sql`update appbuilder.end_user_refresh_tokens set used_at = now() where token_hash = ${sha256(refreshToken)}`.execute(trx);
    await sql`update appbuilder.end_user_sessions set last_used_at = now(),
      expires_at = now() + make_interval(secs => ${ctx.settings.refreshTtlSeconds}) where id = ${row.session_id}`.execute(trx);
    return { user, sessionId: row.session_id, signedInAtMs: new Date(row.created_at).getTime(), refreshToken: await newRefreshToken(trx, row.session_id) } as const;
  });
  if ('refused' in outcome) {
    if ('userId' in outcome && outcome.userId) forgetUser(ctx.app, outcome.userId);
    throw unauthorized(outcome.refused);
  }
  return {
    token: await signAccessToken(ctx, outcome.user.id, outcome.sessionId, outcome.signedInAtMs),
    refreshToken: outcome.refreshToken,
    user: await profileOf(ctx, outcome.user),
  };
}

/**
 * Ends one session of the user (`sessionId`), or all of them (`null`): then access tokens issued
 * until now are refused too. Runs in the caller's transaction; the user's notice goes out on commit
 * (call `forgetUser` after it for this process).
 */
export async function revokeSessions(executor: Executor, app: CompiledApp, userId: string, sessionId: string | null): Promise<void> {
  if (sessionId === null) {
    await sql`update appbuilder.end_user_sessions set revoked_at = now()
      where application_id = ${app.applicationId} and user_id = ${userId} and revoked_at is null`.execute(executor);
    await sql`insert into appbuilder.end_user_states (application_id, user_id, tokens_valid_after)
      values (${app.applicationId}, ${userId}, clock_timestamp())
      on conflict (application_id, user_id) do update set tokens_valid_after = excluded.tokens_valid_after`.execute(executor);
  } else {
    await sql`update appbuilder.end_user_sessions set revoked_at = now()
      where id = ${sessionId} and application_id = ${app.applicationId} and user_id = ${userId} and revoked_at is null`.execute(executor);
  }
  await sql`select pg_notify(${USERS_CHANNEL}, ${`${app.schema} ${userId}`})`.execute(executor);
}

/** `POST /auth/logout {all?}` of the signed-in user whose access token carries `claims`. */
export async function logout(ctx: SessionContext, claims: AccessClaims, all: boolean): Promise<void> {
  if (!all && !claims.sid) return;
  await ctx.db.kysely.transaction().execute((trx) => revokeSessions(trx, ctx.app, claims.sub, all ? null : claims.sid!));
  forgetUser(ctx.app, claims.sub);
}

interface Revocations {
  validAfterMs: number;
  revokedSessions: ReadonlySet<string>;
}

/** Most users have no session revoked lately: one empty set for all of them (one is kept per signed-in user). */
const NONE_REVOKED: ReadonlySet<string> = new Set();

/** Per `auth` object of the end-user cache: forgotten with it when the user changes or is revoked. */
const revocationsOf = new WeakMap<PlainRecord, Promise<Revocations>>();

async function loadRevocations(db: Db, app: CompiledApp, userId: string, accessTtlSeconds: number): Promise<Revocations> {
  // Sessions revoked longer ago than an access token lives have no live tokens left to refuse.
  const result = await sql<{ valid_after: Date | string | null; revoked: string[] | null }>`
    select (select tokens_valid_after from appbuilder.end_user_states where application_id = ${app.applicationId} and user_id = ${userId}) as valid_after,
      (select array_agg(id::text) from appbuilder.end_user_sessions where application_id = ${app.applicationId} and user_id = ${userId}
        and revoked_at > now() - make_interval(secs => ${accessTtlSeconds + 60})) as revoked`.execute(db.kysely);
  const row = result.rows[0];
  return {
    validAfterMs: row?.valid_after ? new Date(row.valid_after).getTime() : 0,
    revokedSessions: row?.revoked?.length ? new Set(row.revoked) : NONE_REVOKED,
  };
}

/** Whether an access token with `claims`, naming end user `auth`, has not been revoked. */
export async function accessTokenLive(db: Db, app: CompiledApp, auth: PlainRecord, claims: AccessClaims, accessTtlSeconds: number): Promise<boolean> {
  let revocations = revocationsOf.get(auth);
  if (!revocations) {
    revocations = loadRevocations(db, app, claims.sub, accessTtlSeconds);
    revocations.catch(() => revocationsOf.delete(auth));
    // A frozen `auth` is the cache's, shared until the user's notice; a fresh one is this request's alone.
    if (Object.isFrozen(auth)) revocationsOf.set(auth, revocations);
  }
  const known = await revocations;
  if (claims.issuedAtMs < known.validAfterMs) return false;
  return !(claims.sid && known.revokedSessions.has(claims.sid));
}
