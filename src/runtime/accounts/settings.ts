// The service-wide settings of end-user accounts (DESIGN §18), read from the environment by
// config.ts. What one application changes (its SMTP server, sender, templates, links, whether
// log-in needs a verified email) are its variables and secrets (§11), read per request.
// Types only: config.ts reads this file, and must not load the runtime.
import type { SessionSettings } from './sessions.ts';

export interface AccountSettings extends SessionSettings {
  /** APPBUILDER_SMTP_URL: the SMTP server of apps that set no `SMTP_URL` of their own; none: no mail. */
  smtpUrl: string | null;
  /** APPBUILDER_MAIL_FROM: the sender of apps that set no `MAIL_FROM`. */
  mailFrom: string;
  /** How long the link of each mail works, seconds (APPBUILDER_VERIFY_TOKEN_TTL, APPBUILDER_RESET_TOKEN_TTL, APPBUILDER_EMAIL_CHANGE_TOKEN_TTL). */
  verifyTokenTtlSeconds: number;
  resetTokenTtlSeconds: number;
  emailChangeTokenTtlSeconds: number;
  /** Account-route requests per minute for one account (APPBUILDER_AUTH_ACCOUNT_RATE_LIMIT; 0: off); per address it is APPBUILDER_AUTH_RATE_LIMIT. */
  accountPerMinute: number;
}

export const DEFAULT_ACCOUNT_SETTINGS: AccountSettings = {
  accessTtlSeconds: 900,
  refreshTtlSeconds: 30 * 86400,
  smtpUrl: null,
  mailFrom: 'no-reply@appbuilder.localhost',
  verifyTokenTtlSeconds: 24 * 3600,
  resetTokenTtlSeconds: 3600,
  emailChangeTokenTtlSeconds: 24 * 3600,
  accountPerMinute: 5,
};

type Duration = (value: string | undefined, fallback: number) => number;

/** From the environment; `duration` reads `7d`, `12h`, `30m`, `45s` or seconds (config.ts's). */
export function loadAccountSettings(env: NodeJS.ProcessEnv, duration: Duration): AccountSettings {
  const d = DEFAULT_ACCOUNT_SETTINGS;
  const perMinute = Number(env.APPBUILDER_AUTH_ACCOUNT_RATE_LIMIT ?? '');
  return {
    accessTtlSeconds: duration(env.APPBUILDER_APP_TOKEN_TTL, d.accessTtlSeconds),
    refreshTtlSeconds: duration(env.APPBUILDER_APP_REFRESH_TTL, d.refreshTtlSeconds),
    smtpUrl: env.APPBUILDER_SMTP_URL || null,
    mailFrom: env.APPBUILDER_MAIL_FROM || d.mailFrom,
    verifyTokenTtlSeconds: duration(env.APPBUILDER_VERIFY_TOKEN_TTL, d.verifyTokenTtlSeconds),
    resetTokenTtlSeconds: duration(env.APPBUILDER_RESET_TOKEN_TTL, d.resetTokenTtlSeconds),
    emailChangeTokenTtlSeconds: duration(env.APPBUILDER_EMAIL_CHANGE_TOKEN_TTL, d.emailChangeTokenTtlSeconds),
    accountPerMinute: Number.isInteger(perMinute) && perMinute >= 0 && env.APPBUILDER_AUTH_ACCOUNT_RATE_LIMIT !== '' ? perMinute : d.accountPerMinute,
  };
}
