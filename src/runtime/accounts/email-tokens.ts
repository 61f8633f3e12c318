// The tokens of the account mails (DESIGN §18): random, stored only as their sha256, bound to one
// application, user and purpose, used once, expiring. A new token of a purpose replaces the user's
// earlier unused ones, so only the latest mail's link works.
import { sql } from 'kysely';
import type { Executor } from '../../storage/db.ts';
import { badRequest } from '../../errors.ts';
import type { CompiledApp } from '../compiled-app.ts';
import { randomToken, sha256 } from './sessions.ts';

export type TokenPurpose = 'verify' | 'password' | 'email';

/** Stores a new token and returns it (the only time it exists in clear). `email`: the address it was sent to. */
export async function storeEmailToken(
  executor: Executor,
  app: CompiledApp,
  userId: string,
  purpose: TokenPurpose,
  ttlSeconds: number,
  email: string | null,
): Promise<string> {
  const token = randomToken();
  await sql`update appbuilder.end_user_email_tokens set used_at = now()
    where application_id = ${app.applicationId} and user_id = ${userId} and purpose = ${purpose} and used_at is null`.execute(executor);
  await sql`insert into appbuilder.end_user_email_tokens (token_hash, application_id, user_id, purpose, new_email, expires_at)
    values (${sha256(token)}, ${app.applicationId}, ${userId}, ${purpose}, ${email}, now() + make_interval(secs => ${ttlSeconds}))`.execute(executor);
  return token;
}

/**
 * Uses a token up inside the caller's transaction (rolled back with it when the change fails) and
 * returns whom and which address it is for; an unknown, used or expired token is a 400 saying which.
 */
export async function consumeEmailToken(
  executor: Executor,
  app: CompiledApp,
  token: unknown,
  purpose: TokenPurpose,
): Promise<{ userId: string; email: string | null }> {
  if (typeof token !== 'string' || token.length === 0 || token.length > 200) throw badRequest('Send the token of the mail\'s link.', [{ path: '/token', message: 'is required' }]);
  const hash = sha256(token);
  const used = await sql<{ user_id: string; new_email: string | null }>`update appbuilder.end_user_email_tokens set used_at = now()
    where token_hash = ${hash} and application_id = ${app.applicationId} and purpose = ${purpose} and used_at is null and expires_at > now()
    returning user_id, new_email`.execute(executor);
  const row = used.rows[0];
  if (row) return { userId: row.user_id, email: row.new_email };
  const known = await sql<{ used: boolean }>`select used_at is not null as used from appbuilder.end_user_email_tokens
    where token_hash = ${hash} and application_id = ${app.applicationId} and purpose = ${purpose}`.execute(executor);
  const why = !known.rows[0] ? 'is not known' : known.rows[0].used ? 'was already used (or replaced by a newer mail)' : 'has expired';
  throw badRequest(`This link ${why}: ask for a new mail.`, [{ path: '/token', message: why }]);
}
