// The TOTP second factor of generated apps' end users (DESIGN §18), with `otpauth`: RFC 6238
// codes of 6 digits every 30 s, SHA-1 (what every authenticator app reads from an otpauth URI).
// The secret is sealed under the application's data key (envelope, §11) with additional data
// naming the user, so a sealed secret copied to another row does not open. A code is accepted
// within one step either side of now, and only for a step newer than the last one used: the same
// code (or an older one) is never taken twice. Recovery codes are random, shown once, stored as
// their sha256 and spent on use.
import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Secret, TOTP } from 'otpauth';
import type { Db, Executor } from '../../storage/db.ts';
import { conflict, unprocessable } from '../../errors.ts';
import { DataKeys } from '../../secrets/data-keys.ts';
import { open, seal } from '../../secrets/envelope.ts';
import type { CompiledApp } from '../compiled-app.ts';

const PERIOD = 30;
const DIGITS = 6;
/** Steps either side of now a code is still taken for (clock drift between phone and server). */
const WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;

// Imported on first use: only an app whose users enrol a second factor needs it (issue 28).
type Otpauth = typeof import('otpauth');
let otpauth: Promise<Otpauth> | undefined;
function loadOtpauth(): Promise<Otpauth> {
  otpauth ??= import('otpauth');
  return otpauth;
}

/** The additional data a TOTP secret is sealed with (backups reseal it for a new application). */
export const totpAad = (applicationId: string, userId: string) => `${applicationId}:totp:${userId}`;
const hashCode = (code: string) => createHash('sha256').update(code).digest('base64url');

/** `xxxxx-xxxxx` from an alphabet without look-alikes: 50 random bits. */
function recoveryCode(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => alphabet[b % alphabet.length]);
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
}

/** What a user types as a recovery code, as it is hashed (case, spaces and dashes do not matter). */
const normaliseRecovery = (code: string) => {
  const compact = code.toLowerCase().replace(/[\s-]/g, '');
  return `${compact.slice(0, 5)}-${compact.slice(5)}`;
};

export interface Enrollment {
  secret: string;
  otpauthUri: string;
}

export class TotpFactors {
  readonly #dataKeys: DataKeys;

  constructor(
    private readonly db: Db,
    masterKey: Buffer,
  ) {
    this.#dataKeys = new DataKeys(db, masterKey);
  }

  #totp(otp: Otpauth, app: CompiledApp, label: string, secret: Secret): TOTP {
    const issuer = app.definition.appOverview?.name ?? app.definition.appId;
    return new otp.TOTP({ issuer, label, algorithm: 'SHA1', digits: DIGITS, period: PERIOD, secret });
  }

  async #key(app: CompiledApp): Promise<Buffer> {
    return this.#dataKeys.key({ kind: 'application', id: app.applicationId });
  }

  /** Whether the user has an active factor (one a code confirmed). */
  async active(executor: Executor, app: CompiledApp, userId: string): Promise<boolean> {
    const found = await sql`select 1 from appbuilder.end_user_totp
      where application_id = ${app.applicationId} and user_id = ${userId} and activated_at is not null`.execute(executor);
    return found.rows.length > 0;
  }

  /** A new secret for the user (replacing one not yet confirmed); refused while one is active. */
  async enroll(app: CompiledApp, userId: string, label: string): Promise<Enrollment> {
    const otp = await loadOtpauth();
    const secret = new otp.Secret({ size: 20 });
    const sealed = seal(secret.base32, await this.#key(app), totpAad(app.applicationId, userId));
    const written = await sql`insert into appbuilder.end_user_totp (application_id, user_id, sealed_secret)
      values (${app.applicationId}, ${userId}, ${sealed})
      on conflict (application_id, user_id) do update set sealed_secret = excluded.sealed_secret, last_step = 0, created_at = now()
        where appbuilder.end_user_totp.activated_at is null
      returning 1`.execute(this.db.kysely);
    if (written.rows.length === 0) throw conflict('A second factor is already active; disable it first (POST /auth/mfa/totp/disable).');
    return { secret: secret.base32, otpauthUri: this.#totp(otp, app, label, secret).toString() };
  }

  /**
   * Takes a TOTP code of the user's factor (active or, with `pending`, the one being enrolled):
   * true when it is right for a step newer than the last one used, which it then becomes.
   */
  async takeCode(executor: Executor, app: CompiledApp, userId: string, code: string, pending = false): Promise<boolean> {
    if (!/^\d{6}$/.test(code)) return false;
    const found = await sql<{ sealed_secret: string; last_step: string | number }>`select sealed_secret, last_step from appbuilder.end_user_totp
      where application_id = ${app.applicationId} and user_id = ${userId} and ${pending ? sql`activated_at is null` : sql`activated_at is not null`}`.execute(executor);
    const row = found.rows[0];
    if (!row) return false;
    const base32 = open(row.sealed_secret, await this.#key(app), totpAad(app.applicationId, userId)).toString('utf8');
    const otp = await loadOtpauth();
    const totp = this.#totp(otp, app, userId, otp.Secret.fromBase32(base32));
    const delta = totp.validate({ token: code, window: WINDOW });
    if (delta === null) return false;
    const step = totp.counter() + delta;
    // Conditional on the last step: two requests with one code cannot both pass.
    const taken = await sql`update appbuilder.end_user_totp set last_step = ${step}
      where application_id = ${app.applicationId} and user_id = ${userId} and last_step < ${step} returning 1`.execute(executor);
    return taken.rows.length > 0;
  }

  /** Spends a recovery code: true once per code. */
  async takeRecoveryCode(executor: Executor, app: CompiledApp, userId: string, code: string): Promise<boolean> {
    if (code.length > 64) return false;
    const spent = await sql`update appbuilder.end_user_recovery_codes set used_at = now()
      where application_id = ${app.applicationId} and user_id = ${userId} and code_hash = ${hashCode(normaliseRecovery(code))} and used_at is null
      returning 1`.execute(executor);
    return spent.rows.length > 0;
  }

  /** A TOTP code or a recovery code of the active factor. */
  async takeAnyCode(executor: Executor, app: CompiledApp, userId: string, code: string): Promise<boolean> {
    const trimmed = code.trim();
    if (/^\d{6}$/.test(trimmed)) return this.takeCode(executor, app, userId, trimmed);
    return this.takeRecoveryCode(executor, app, userId, trimmed);
  }

  /** Confirms the pending factor with a code: it becomes active; answers the recovery codes (shown this once). */
  async activate(app: CompiledApp, userId: string, code: string): Promise<string[]> {
    return this.db.kysely.transaction().execute(async (trx) => {
      if (!(await this.takeCode(trx, app, userId, code.trim(), true))) {
        if (await this.active(trx, app, userId)) throw conflict('The second factor is already active.');
        throw unprocessable('The code is not right (or no enrollment is pending: POST /auth/mfa/totp/enroll first).', [{ path: '/code', message: 'is not a current code of the enrolled secret' }]);
      }
      await sql`update appbuilder.end_user_totp set activated_at = now() where application_id = ${app.applicationId} and user_id = ${userId}`.execute(trx);
      await sql`delete from appbuilder.end_user_recovery_codes where application_id = ${app.applicationId} and user_id = ${userId}`.execute(trx);
      const codes = Array.from({ length: RECOVERY_CODE_COUNT }, recoveryCode);
      for (const code of codes) {
        await sql`insert into appbuilder.end_user_recovery_codes (application_id, user_id, code_hash)
          values (${app.applicationId}, ${userId}, ${hashCode(code)})`.execute(trx);
      }
      return codes;
    });
  }

  /** Removes the factor and its recovery codes, given one of its codes. */
  async disable(app: CompiledApp, userId: string, code: string): Promise<void> {
    await this.db.kysely.transaction().execute(async (trx) => {
      if (!(await this.takeAnyCode(trx, app, userId, code))) {
        throw unprocessable('The code is not right, or no second factor is active.', [{ path: '/code', message: 'is not a current code or an unused recovery code' }]);
      }
      await sql`delete from appbuilder.end_user_totp where application_id = ${app.applicationId} and user_id = ${userId}`.execute(trx);
      await sql`delete from appbuilder.end_user_recovery_codes where application_id = ${app.applicationId} and user_id = ${userId}`.execute(trx);
    });
  }
}
