// The account mails of generated apps (DESIGN §18): email verification, password reset, email
// change. Each request answers 202 at once with the same body whatever the address is, and queues
// the rest (Mailer): the look-up, the token, the mail. So neither the answer nor its time says
// whether an email is registered. Each confirmation uses its token up in the transaction of the
// change it makes: a change that fails leaves the token usable and everything as it was.
import { sql } from 'kysely';
import type { Db, Executor } from '../../storage/db.ts';
import { ident } from '../../storage/sql.ts';
import { Problem, badRequest, conflict, unprocessable } from '../../errors.ts';
import { hashSecret } from '../../tools/secrets.ts';
import type { AppValues } from '../../secrets/app-values.ts';
import type { CompiledApp, CompiledModel } from '../compiled-app.ts';
import { forgetUser } from '../end-user-cache.ts';
import { CREDENTIALS_TABLE } from '../schema-extras.ts';
import type { Mailer } from './mailer.ts';
import type { AccountSettings } from './settings.ts';
import { consumeEmailToken, storeEmailToken, type TokenPurpose } from './email-tokens.ts';
import { durationWords, renderMail, type MailKind } from './templates.ts';
import { revokeSessions } from './sessions.ts';
import { verifiedField } from './verified.ts';

/** What a flow needs of the request. */
export interface FlowRequest {
  app: CompiledApp;
  values?: AppValues;
  /** The version's files route (`…/apps/{id}/api/v{version}/files/`): the app's address is read from it. */
  filesUrl?: string;
}

export const MIN_PASSWORD = 8;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** The one answer of every mail request. */
export const QUEUED = { message: 'If the address belongs to an account, a mail with a link is on its way.' };

const FRONTEND_PAGES: Record<MailKind, string> = { verify: 'verify', passwordReset: 'reset-password', emailChange: 'confirm-email' };
const PURPOSE: Record<MailKind, TokenPurpose> = { verify: 'verify', passwordReset: 'password', emailChange: 'email' };

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
    if (typeof password !== 'string' || password.length < MIN_PASSWORD) {
      throw unprocessable('The password is too short.', [{ path: '/password', message: `needs at least ${MIN_PASSWORD} characters` }]);
    }
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

  /** `POST /auth/email/request {newEmail}` of the signed-in user: the mail goes to the new address. */
  emailRequest(request: FlowRequest, userId: string, newEmail: string): typeof QUEUED {
    const send = this.#sender(request, 'emailChange');
    this.mailer.queue('emailChange', request.app.applicationId, async () => {
      const user = await this.#userById(request.app, userId);
      if (user && user.email !== newEmail) await send(user.id, newEmail, newEmail, this.settings.emailChangeTokenTtlSeconds);
    });
    return QUEUED;
  }

  /** `POST /auth/email/confirm {token}`: the user's email becomes the new (and so verified) address. */
  async emailConfirm(request: FlowRequest, token: unknown): Promise<{ email: string }> {
    const { app } = request;
    const model = app.userModel!;
    const column = emailColumn(model);
    const result = await this.db.kysely.transaction().execute(async (trx) => {
      const { userId, email } = await consumeEmailToken(trx, app, token, 'email');
      const taken = await sql`select 1 from ${ident(app.schema, model.table)} where lower(${ident(column)}) = ${email} and id <> ${userId}`.execute(trx);
      if (taken.rows.length > 0) throw conflict('Another account has this address now.', [{ path: '/token', message: 'is for an address another account has' }]);
      await sql`update ${ident(app.schema, model.table)} set ${ident(column)} = ${email}, updated_at = now() where id = ${userId}`.execute(trx);
      await this.#setVerified(trx, app, userId);
      return { userId, email: email! };
    });
    forgetUser(app, result.userId);
    return { email: result.email };
  }

  /** Fails now (503) when the app has no mail server, before anything is queued; else the job's sending step. */
  #sender(request: FlowRequest, kind: MailKind): (userId: string, to: string, bound: string | null, ttl: number) => Promise<void> {
    const env = request.values?.env ?? {};
    // A secret only (admins set those): a variable an editor can set must not choose where mail, and its reset links, go.
    const smtpUrl = request.values?.secrets.SMTP_URL || this.settings.smtpUrl;
    if (!smtpUrl) throw new Problem(503, 'This application sends no mail: set its SMTP_URL secret (or APPBUILDER_SMTP_URL for the service).');
    if (!request.app.userModel?.fieldsByName.get('email')?.column) throw new Problem(404, 'The user model has no email field, so no account mails.');
    const { app } = request;
    const base = env.FRONTEND_URL || appUrlOf(request.filesUrl);
    return async (userId, to, bound, ttl) => {
      const token = await storeEmailToken(this.db.kysely, app, userId, PURPOSE[kind], ttl, bound);
      const link = `${base}#/${FRONTEND_PAGES[kind]}?token=${encodeURIComponent(token)}`;
      const view = { appName: app.definition.appOverview?.name ?? app.definition.appId, link, token, email: to, expiresIn: durationWords(ttl) };
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

/** `{origin}/apps/{id}/` from the version's files route: where the links point when the app sets no FRONTEND_URL. */
function appUrlOf(filesUrl: string | undefined): string {
  if (!filesUrl) return '/';
  const at = filesUrl.lastIndexOf('/api/v');
  return at >= 0 ? filesUrl.slice(0, at + 1) : filesUrl;
}
