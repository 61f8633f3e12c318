// The second step of a sign-in for users with a TOTP factor (DESIGN §18): the first step
// (password log-in, or an OpenID Connect callback) answers `{mfaRequired: true, mfaToken}`
// instead of a session; `POST /auth/mfa {mfaToken, code}` completes it. The mfaToken is a JWT
// of the app's own key with its own audience (`app:{id}:mfa`), so it is never taken as an access
// token, and it lives five minutes.
import { randomBytes } from 'node:crypto';
import { SignJWT, decodeJwt, jwtVerify } from 'jose';
import { sql } from 'kysely';
import type { Db } from '../../storage/db.ts';
import { Problem, unauthorized } from '../../errors.ts';
import { AppKeys } from '../app-keys.ts';
import type { CompiledApp } from '../compiled-app.ts';
import { readPlainRecord, type PlainRecord } from '../writes/plain-record.ts';
import { issueSession, type IssuedSession, type SessionContext } from './sessions.ts';
import { TotpFactors } from './totp.ts';

const MFA_TOKEN_TTL_SECONDS = 300;

export interface MfaChallenge {
  mfaRequired: true;
  mfaToken: string;
}

const audience = (app: CompiledApp) => `app:${app.applicationId}:mfa`;

export function isChallenge(answer: unknown): answer is MfaChallenge {
  return typeof answer === 'object' && answer !== null && (answer as { mfaRequired?: unknown }).mfaRequired === true;
}

export class MfaGate {
  constructor(
    private readonly db: Db,
    private readonly keys: AppKeys,
    readonly totp: TotpFactors,
  ) {}

  async #challenge(app: CompiledApp, userId: string): Promise<MfaChallenge> {
    const mfaToken = await new SignJWT({ jti: randomBytes(12).toString('base64url') })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setAudience(audience(app))
      .setIssuedAt()
      .setExpirationTime(`${MFA_TOKEN_TTL_SECONDS}s`)
      .sign(await this.keys.jwtKey(app.applicationId));
    return { mfaRequired: true, mfaToken };
  }

  /** A session for `user`, or the challenge when they have a second factor (OIDC callback). */
  async signIn(ctx: SessionContext, user: PlainRecord): Promise<IssuedSession | MfaChallenge> {
    if (await this.totp.active(this.db.kysely, ctx.app, user.id)) return this.#challenge(ctx.app, user.id);
    return issueSession(ctx, user);
  }

  /**
   * After a password log-in issued `session`: when the user has a second factor, the session is
   * deleted before anyone saw its tokens, and the challenge is answered instead.
   */
  async afterLogin(app: CompiledApp, session: IssuedSession): Promise<IssuedSession | MfaChallenge> {
    const userId = String(session.user.id);
    if (!(await this.totp.active(this.db.kysely, app, userId))) return session;
    const { sid } = decodeJwt(session.token);
    if (typeof sid === 'string') {
      await sql`delete from appbuilder.end_user_sessions where id = ${sid} and application_id = ${app.applicationId}`.execute(this.db.kysely);
    }
    return this.#challenge(app, userId);
  }

  /** `POST /auth/mfa {mfaToken, code}`: a TOTP code or an unused recovery code completes the sign-in. */
  async complete(ctx: SessionContext, body: unknown): Promise<IssuedSession> {
    const { mfaToken, code } = (body ?? {}) as { mfaToken?: unknown; code?: unknown };
    if (typeof mfaToken !== 'string' || typeof code !== 'string') {
      throw new Problem(400, 'Send mfaToken (from the log-in answer) and code.', [{ path: typeof mfaToken !== 'string' ? '/mfaToken' : '/code', message: 'is required' }]);
    }
    const userId = await this.subjectOf(ctx.app, mfaToken);
    const user = await this.db.kysely.transaction().execute(async (trx) => {
      if (!(await this.totp.takeAnyCode(trx, ctx.app, userId, code))) return null;
      return ctx.app.userModel ? ((await readPlainRecord(trx, ctx.app, ctx.app.userModel, userId)) ?? null) : null;
    });
    if (!user) throw unauthorized('The code is not right (a code is taken once; a recovery code too).');
    return issueSession(ctx, user);
  }

  /** The user an mfaToken names; 401 when it is not one of this app's, or expired. */
  async subjectOf(app: CompiledApp, mfaToken: string): Promise<string> {
    try {
      const { payload } = await jwtVerify(mfaToken, await this.keys.jwtKey(app.applicationId), { audience: audience(app), algorithms: ['HS256'] });
      if (typeof payload.sub === 'string') return payload.sub;
    } catch {
      // Answered below, whatever the reason.
    }
    throw unauthorized('The mfaToken is not valid or has expired; log in again.');
  }
}

/** The gate over the app's own signing keys and TOTP factors (both sealed under the master key's envelope). */
export function mfaGate(db: Db, masterKey: Buffer): MfaGate {
  return new MfaGate(db, new AppKeys(db, masterKey), new TotpFactors(db, masterKey));
}
