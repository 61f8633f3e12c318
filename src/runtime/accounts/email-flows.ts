// The account mails of generated apps (DESIGN §18): email verification, password reset, email
// change. Each request answers 202 at once with the same body whatever the address is, and queues
// the rest (Mailer): the look-up, the token, the mail. So neither the answer nor its time says
// whether an email is registered. Each confirmation uses its token up in the transaction of the
// change it makes: a change that fails leaves the token usable and everything as it was.
// The links are built from the app's FRONTEND_URL variable, else from its own origin as configured
// (tools/app-origin.ts), never from the request's Host or forwarded headers: anyone may ask for a
// mail to anyone, and a link to the asker's host would hand them the token.
import { sql } from 'kysely';
import type { Db, Executor } from '../../storage/db.ts';
import { ident } from '../../storage/sql.ts';
import { Problem, badRequest, conflict, unprocessable } from '../../errors.ts';
import { hashSecret, verifySecret } from '../../tools/secrets.ts';
import type { AppOrigins } from '../../tools/app-origin.ts';
import type { AppValues } from '../../secrets/app-values.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { forgetUser } from '../end-user-cache.ts';
import { CREDENTIALS_TABLE } from '../schema-extras.ts';
import type { Mailer } from './mailer.ts';
import type { AccountSettings } from './settings.ts';
import { consumeEmailToken, storeEmailToken, type TokenPurpose } from './email-tokens.ts';
import { durationWords, isNotice, renderMail, type MailKind, type MailView, type NoticeKind } from './templates.ts';
import { httpOrigin } from './providers.ts';
import { revokeSessions } from './sessions.ts';
import { verifiedField } from './verified.ts';
import { checkPasswordLength } from './password-policy.ts';

/** What a flow needs of the request. */
export interface FlowRequest {
  app: CompiledApp;
  values?: AppValues;
  filesUrl?: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** The one answer of every mail request. */
export const QUEUED = { message: 'If the address belongs to an account, a mail with a link is on its way.' };

type TokenKind = Exclude<MailKind, NoticeKind>;
const FRONTEND_PAGES: Record<TokenKind, string> = { verify: 'verify', passwordReset: 'reset-password', emailChange: 'confirm-email' };
const PURPOSE: Record<TokenKind, TokenPurpose> = { verify: 'verify', passwordReset: 'password', emailChange: 'email' };

/** A sign-in this recent stands in for the current password when the email changes. */
export const RECENT_SIGN_IN_MS = 5 * 60_000;

/** The sending step of a mail: to `to`, its token bound to `bound` (an address) for `ttl` seconds. */
type Send = (userId: string, to: string, bound: string | null, ttl: number, more?: Partial<MailView>) => Promise<void>;

/**
 * Where the links of an app's mails point: its FRONTEND_URL variable, else its own origin from the
 * service's configuration (`ownOrigin`, e.g. `http://{id}.localhost:8080`). Never the request's
 * host. Neither: 503 saying what to set.
 */
export function mailLinkBase(env: Record<string, string>, ownOrigin: string | null): string {
  const frontend = env.FRONTEND_URL;
  if (frontend) {
    if (!httpOrigin(frontend)) throw new Problem(503, 'This application\'s FRONTEND_URL variable is not an absolute http(s) URL, so its mails would have no working link: fix it.');
    return frontend;
  }
  if (ownOrigin === null) {
    throw new Problem(503, 'This application has no trustworthy address for the links of its mails: set its FRONTEND_URL variable, or APPBUILDER_APPS_DOMAIN (and APPBUILDER_PUBLIC_URL) for the service.');
  }
  return `${ownOrigin}/`;
}

/** An email as accounts are keyed (trimmed, lower case), or a 400/422 naming `path`. */
export function normaliseEmail(value: unknown, path: string): string {
  if (typeof value !== 'string') throw badRequest(`Send ${path.slice(1)}.`, [{ path, message: 'is required' }]);
  const email = value.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 320) throw unprocessable('That is not an email address.', [{ path, message: 'is not an email address' }]);
  return email;
}

function emailColumn(model: CompiledModel): string {
  const column = model.fieldsByName.get('email')?.column;
  if (!column) throw new Problem(404, 'The user model has no email field, so no account mails.');
  return column;
}

export class AccountEmails {
  constructor(
    private readonly db: Db,
    private readonly mailer: Mailer,
    private readonly settings: AccountSettings,
    /** Each application's own origin, from configuration (null: none known, so links only from FRONTEND_URL). */
    private readonly origins: AppOrigins | null = null,
  ) {}

  /** `POST /auth/verify/request`: for the signed-in user (`userId`), or for `{email}`. */
  verifyRequest(request: FlowRequest, target: { userId: string } | { email: string }): typeof QUEUED {
    const send = this.#sender(request, 'verify');
    const field = verifiedField(request.app);
    this.mailer.queue('verify', request.app.applicationId, async () => {
      const user = 'userId' in target ? await this.#userById(request.app, target.userId) : await this.#userByEmail(request.app, target.email);
      if (!user || (field && user.verified === true)) return;
      await send(user.id, user.email, user.email, this.settings.verifyTokenTtlSeconds);
    });
    return QUEUED;
  }

  /** `POST /auth/verify/confirm {token}`: the address the mail went to is verified (if it is still the user's). */
  async verifyConfirm(request: FlowRequest, token: unknown): Promise<{ verified: true }> {
    const { app } = request;
    const userId = await this.db.kysely.transaction().execute(async (trx) => {
      const { userId, email } = await consumeEmailToken(trx, app, token, 'verify');
      const user = await this.#userById(app, userId, trx);
      if (!user || user.email !== email) throw badRequest('This link is for an address the account no longer has: ask for a new mail.', [{ path: '/token', message: 'is for another address' }]);
      await this.#setVerified(trx, app, userId);
      return userId;
    });
    forgetUser(app, userId);
    return { verified: true };
  }

  /** `POST /auth/password/request {email}`: 202 whether or not the account exists. */
  passwordRequest(request: FlowRequest, email: string): typeof QUEUED {
    const send = this.#sender(request, 'passwordReset');
    this.mailer.queue('passwordReset', request.app.applicationId, async () => {
      const user = await this.#userByEmail(request.app, email);
      if (user) await send(user.id, user.email, null, this.settings.resetTokenTtlSeconds);
    });
    return QUEUED;
  }

  /** `POST /auth/password/confirm {token, password}`: the new password, and every session of the user ended at once. */
  async passwordConfirm(request: FlowRequest, token: unknown, password: unknown): Promise<void> {
    const { app } = request;
    checkPasswordLength(password);
    const hash = await hashSecret(password);
    const userId = await this.db.kysely.transaction().execute(async (trx) => {
      const { userId } = await consumeEmailToken(trx, app, token, 'password');
      await sql`insert into ${ident(app.schema, CREDENTIALS_TABLE)} (user_id, password_hash) values (${userId}, ${hash})
        on conflict (user_id) do update set password_hash = excluded.password_hash`.execute(trx);
      // The link proved the address is theirs.
      await this.#setVerified(trx, app, userId);
      await revokeSessions(trx, app, userId, null);
      return userId;
    });
    forgetUser(app, userId);
  }

  /**
   * `POST /auth/email/request {newEmail, currentPassword?}` of the signed-in user: the mail goes to the
   * new address. A stolen access token alone must not move the account to the thief's address: the
   * current password is needed, or a sign-in (`signedInAtMs`, the session's start) within the last
   * five minutes.
   */
  async emailRequest(request: FlowRequest, userId: string, newEmail: string, proof: { currentPassword?: unknown; signedInAtMs?: number }): Promise<typeof QUEUED> {
    // A malformed request is refused as such before "this app sends no mail" (503) is considered.
    if (proof.currentPassword !== undefined && typeof proof.currentPassword !== 'string') {
      throw badRequest('currentPassword is a string.', [{ path: '/currentPassword', message: 'must be a string' }]);
    }
    const send = this.#sender(request, 'emailChange');
    await this.#checkProof(request.app, userId, proof);
    this.mailer.queue('emailChange', request.app.applicationId, async () => {
      const user = await this.#userById(request.app, userId);
      if (user && user.email !== newEmail) await send(user.id, newEmail, newEmail, this.settings.emailChangeTokenTtlSeconds);
    });
    return QUEUED;
  }

  async #checkProof(app: CompiledApp, userId: string, proof: { currentPassword?: unknown; signedInAtMs?: number }): Promise<void> {
    const { currentPassword, signedInAtMs } = proof;
    if (currentPassword === undefined) {
      if (signedInAtMs !== undefined && Date.now() - signedInAtMs <= RECENT_SIGN_IN_MS) return;
      throw new Problem(403, 'Changing the email needs the current password, or a sign-in within the last 5 minutes: send currentPassword.', [
        { path: '/currentPassword', message: 'is required' },
      ]);
    }
    if (typeof currentPassword !== 'string') throw badRequest('currentPassword is a string.', [{ path: '/currentPassword', message: 'must be a string' }]);
    const found = await sql<{ password_hash: string }>`select password_hash from ${ident(app.schema, CREDENTIALS_TABLE)} where user_id = ${userId}`.execute(this.db.kysely);
    const hash = found.rows[0]?.password_hash;
    if (!hash || !(await verifySecret(currentPassword, hash))) {
      throw new Problem(403, 'The current password is not right.', [
        { path: '/currentPassword', message: hash ? 'is not the password of this account' : 'this account has no password: sign in again instead' },
      ]);
    }
  }

  /** `POST /auth/email/confirm {token}`: the user's email becomes the new (and so verified) address. */
  async emailConfirm(request: FlowRequest, token: unknown): Promise<{ email: string }> {
    const { app } = request;
    const model = app.userModel!;
    const column = emailColumn(model);
    const notify = this.#noticeSender(request, 'emailChanged');
    const result = await this.db.kysely.transaction().execute(async (trx) => {
      const { userId, email } = await consumeEmailToken(trx, app, token, 'email');
      const taken = await sql`select 1 from ${ident(app.schema, model.table)} where lower(${ident(column)}) = ${email} and id <> ${userId}`.execute(trx);
      if (taken.rows.length > 0) throw conflict('Another account has this address now.', [{ path: '/token', message: 'is for an address another account has' }]);
      const before = await this.#userById(app, userId, trx);
      await sql`update ${ident(app.schema, model.table)} set ${ident(column)} = ${email}, updated_at = now() where id = ${userId}`.execute(trx);
      await this.#setVerified(trx, app, userId);
      return { userId, email: email!, oldEmail: before?.email ?? null };
    });
    forgetUser(app, result.userId);
    // The old address hears of it: if the change was not its owner's, they learn at once.
    const { oldEmail } = result;
    if (notify && oldEmail && oldEmail !== result.email) {
      this.mailer.queue('emailChanged', app.applicationId, () => notify(result.userId, oldEmail, null, 0, { newEmail: result.email }));
    }
    return { email: result.email };
  }

  /** The sending step of a notice, or null when the app can send no mail now (the change it tells of stands). */
  #noticeSender(request: FlowRequest, kind: NoticeKind): Send | null {
    try {
      return this.#sender(request, kind);
    } catch {
      return null;
    }
  }

  /**
   * The neutral sign-up's mail (SIGNUP_NEUTRAL): the new account is asked to verify its address,
   * a registered one is told someone tried; the answer is the same either way.
   */
  signupMail(request: FlowRequest, outcome: { userId: string } | { email: string }): void {
    const verify = this.#sender(request, 'verify');
    const notice = this.#sender(request, 'signupExisting');
    this.mailer.queue('signup', request.app.applicationId, async () => {
      if ('userId' in outcome) {
        const user = await this.#userById(request.app, outcome.userId);
        if (user) await verify(user.id, user.email, user.email, this.settings.verifyTokenTtlSeconds);
      } else {
        const user = await this.#userByEmail(request.app, outcome.email);
        if (user) await notice(user.id, user.email, null, 0);
      }
    });
  }

  /** Fails now (503) when the app cannot mail (no mail server, no address to link to). */
  checkMail(request: FlowRequest): void {
    this.#sender(request, 'verify');
  }

  /** Fails now (503) when the app has no mail server, before anything is queued; else the job's sending step. */
  #sender(request: FlowRequest, kind: MailKind): Send {
    const env = request.values?.env ?? {};
    // A secret only (admins set those): a variable an editor can set must not choose where mail, and its reset links, go.
    const smtpUrl = request.values?.secrets.SMTP_URL || this.settings.smtpUrl;
    if (!smtpUrl) throw new Problem(503, 'This application sends no mail: set its SMTP_URL secret (or APPBUILDER_SMTP_URL for the service).');
    if (!request.app.userModel?.fieldsByName.get('email')?.column) throw new Problem(404, 'The user model has no email field, so no account mails.');
    const { app } = request;
    const base = mailLinkBase(env, this.origins ? this.origins.of(app.applicationId) : null);
    return async (userId, to, bound, ttl, more = {}) => {
      const token = isNotice(kind) ? '' : await storeEmailToken(this.db.kysely, app, userId, PURPOSE[kind], ttl, bound);
      const link = isNotice(kind) ? base : `${base}#/${FRONTEND_PAGES[kind]}?token=${encodeURIComponent(token)}`;
      const view = { appName: app.definition.appOverview?.name ?? app.definition.appId, link, token, email: to, expiresIn: durationWords(ttl), ...more };
      await this.mailer.send(smtpUrl, { from: env.MAIL_FROM || this.settings.mailFrom, to, ...(await renderMail(kind, view, env)) });
    };
  }

  async #userById(app: CompiledApp, id: string, executor: Executor = this.db.kysely): Promise<{ id: string; email: string; verified: unknown } | undefined> {
    return (await this.#users(app, sql`id = ${id}`, executor))[0];
  }

  async #userByEmail(app: CompiledApp, email: string): Promise<{ id: string; email: string; verified: unknown } | undefined> {
    return (await this.#users(app, sql`lower(${ident(emailColumn(app.userModel!))}) = ${email}`, this.db.kysely))[0];
  }

  async #users(app: CompiledApp, where: ReturnType<typeof sql>, executor: Executor) {
    const model = app.userModel!;
    const field = verifiedField(app);
    const result = await sql<{ id: string; email: string; verified: unknown }>`
      select id::text as id, lower(${ident(emailColumn(model))}) as email, ${field ? ident(field.column!) : sql`null`} as verified
      from ${ident(app.schema, model.table)} where ${where}`.execute(executor);
    return result.rows;
  }

  async #setVerified(executor: Executor, app: CompiledApp, userId: string): Promise<void> {
    const field = verifiedField(app);
    if (!field) return;
    await sql`update ${ident(app.schema, app.userModel!.table)} set ${ident(field.column!)} = true, updated_at = now()
      where id = ${userId} and ${ident(field.column!)} is distinct from true`.execute(executor);
  }
}
