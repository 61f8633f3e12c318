// The `verified` field of the user model (DESIGN §18): a p_BOOLEAN field named `verified`, set by
// the email flows when present. An application requires it for log-in with the variable
// `AUTH_REQUIRE_VERIFIED=true` (§11: a setting of the running app, changed without republishing,
// like `SMTP_URL`; a definition member would need a new version for an operational switch).
import { Problem } from '../../errors.ts';
import type { CompiledApp, CompiledField } from '../compiled-app.ts';
import type { PlainRecord } from '../writes/plain-record.ts';

export const REQUIRE_VERIFIED_VARIABLE = 'AUTH_REQUIRE_VERIFIED';
export const EMAIL_NOT_VERIFIED = 'https://appbuilder.dev/problems/email-not-verified';

/** The user model's `verified` field when it is a stored p_BOOLEAN, else null. */
export function verifiedField(app: CompiledApp): CompiledField | null {
  const field = app.userModel?.fieldsByName.get('verified');
  return field && field.to === 'p_BOOLEAN' && field.column && !field.many ? field : null;
}

function requiresVerification(env: Record<string, string>): boolean {
  return /^(true|1|yes|on)$/i.test(env[REQUIRE_VERIFIED_VARIABLE]?.trim() ?? '');
}

/**
 * Refuses the log-in of an unverified user (403) when the app requires verification. Asked only
 * after the password matched, so it tells nothing to someone who does not know it.
 */
export function requireVerified(app: CompiledApp, user: PlainRecord, env: Record<string, string>): void {
  if (!requiresVerification(env)) return;
  const field = verifiedField(app);
  if (!field) return;
  if (user[field.name] !== true) {
    throw new Problem(
      403,
      'This account\'s email address is not verified yet: open the link of the verification mail (POST …/auth/verify/request {email} sends a new one).',
      [{ path: '/email', message: 'is not verified' }],
      EMAIL_NOT_VERIFIED,
    );
  }
}
