import { resolve } from 'node:path';
import { loadStorageConfig, type StorageConfig } from './files/config.ts';
import { loadRealtimeSettings, type RealtimeSettings } from './realtime/settings.ts';
import { loadAccountSettings, type AccountSettings } from './runtime/accounts/settings.ts';
import { loadSandboxSettings, type SandboxSettings } from './specifications/sandbox.ts';

/** Everything the service reads from its environment, read in one place. */
export interface Config {
  port: number;
  host: string;
  /** Embedded store directory (PGlite), used when `databaseUrl` is not set. */
  dataDir: string;
  /** `postgres://…` selects PostgreSQL through `pg`; otherwise the embedded store. */
  databaseUrl: string | null;
  /**
   * APPBUILDER_DATABASE_POOLER: what stands between the service and PostgreSQL (`none`, or
   * PgBouncer's `session` or `transaction` mode; docs/scaling.md). Behind a pooler no startup
   * parameter is sent; in `transaction` mode no named prepared statement either.
   */
  databasePooler: 'none' | 'session' | 'transaction';
  /** APPBUILDER_LISTEN_DATABASE_URL: a direct connection for LISTEN and the job queue (default DATABASE_URL). */
  listenDatabaseUrl: string | null;
  basePath: string;
  projectsPath: string;
  appsPath: string;
  /** APPBUILDER_APPS_DOMAIN (default `localhost`): each application answers on its own origin `{id}.{appsDomain}` (src/tools/app-origin.ts). */
  appsDomain: string;
  publicUrl: string | null;
  /** How long a frontend bundle download waits for its build before answering 202 (0: never waits). */
  bundleWaitSeconds: number;
  /** How often schedule triggers are checked for a due tick, seconds (1–45); ticks stay one a minute at most. */
  scheduleCheckSeconds: number;
  bodyLimitBytes: number;
  /** No statement of a request runs longer, ms (APPBUILDER_STATEMENT_TIMEOUT; 0: none; PostgreSQL only). */
  statementTimeoutMs: number;
  /** Entries of a to-many id array or expansion in a generated-app answer (APPBUILDER_RELATION_LIMIT, 1-1000, default 100; DESIGN §6). */
  relationLimit: number;
  /** Ids of a to-many id array inside an embedded record, a placeholder (APPBUILDER_EMBEDDED_ID_LIMIT, 0-relationLimit, default 10; DESIGN §6). */
  embeddedIdLimit: number;
  tokenTtlSeconds: number;
  /** How long action runs are kept, seconds (APPBUILDER_RUN_RETENTION, e.g. `7d`, `12h`, `3600`). */
  runRetentionSeconds: number;
  tokenRateLimitPerMinute: number;
  /** Generated-app requests per minute per address, end user or API client (APPBUILDER_APP_RATE_LIMIT; 0: off). */
  appRateLimitPerMinute: number;
  /** End-user sign-up and log-in attempts per minute per address (APPBUILDER_AUTH_RATE_LIMIT; 0: off). */
  authRateLimitPerMinute: number;
  /** Failed log-ins of one account before it is locked (APPBUILDER_AUTH_MAX_FAILURES; 0: never locked). */
  authMaxFailures: number;
  /** The first lock of an account, seconds; each further lock doubles it (APPBUILDER_AUTH_LOCKOUT). */
  authLockoutSeconds: number;
  metricsPublic: boolean;
  /** Monitoring (DESIGN §19): the request log on (APPBUILDER_REQUEST_LOG, default on), kept APPBUILDER_REQUEST_LOG_RETENTION days (7). */
  requestLog: boolean;
  requestLogRetentionDays: number;
  /** A served version is `degraded` when its share of 5xx over 5 minutes passes this (APPBUILDER_ALERT_ERROR_RATE, 0–1, default 0.05). */
  alertErrorRate: number;
  /** How often health is checked for webhooks, seconds (APPBUILDER_HEALTH_CHECK_INTERVAL, default 30); a failed webhook delivery waits APPBUILDER_WEBHOOK_RETRY seconds (10), doubled each time. */
  healthCheckSeconds: number;
  webhookRetrySeconds: number;
  bootstrapClient: { id: string; secret: string } | null;
  /** APPBUILDER_MASTER_KEY (32 bytes, base64) or APPBUILDER_MASTER_KEY_FILE; else a key file beside the data dir. */
  masterKey: string | null;
  masterKeyFile: string | null;
  /** APPBUILDER_TOKEN_SECRET (at least 32 bytes) signs management tokens; else a key derived from the master key. */
  tokenSecret: string | null;
  logLevel: string;
  /** The LLM planner of the assistant (DESIGN §15): an OpenAI-compatible chat-completions endpoint; off unless url, model and key are set. */
  assistant: { url: string | null; model: string | null; key: string | null; timeoutMs: number };
  /** Customers' files (DESIGN §12): driver, limits, S3 (src/files/config.ts). */
  storage: StorageConfig;
  /** Realtime (DESIGN §17): retention, pings, limits (src/realtime/settings.ts). */
  realtime: RealtimeSettings;
  /** End-user accounts (DESIGN §18): sessions, mail, account-route limits (src/runtime/accounts/settings.ts). */
  accounts: AccountSettings;
  /** Where documents are read: workers, their time and memory limits (src/specifications/sandbox.ts). */
  extraction: SandboxSettings;
}

function trimPath(path: string): string {
  const withSlash = path.startsWith('/') ? path : `/${path}`;
  return withSlash.length > 1 ? withSlash.replace(/\/+$/, '') : withSlash;
}

/** `7d`, `12h`, `30m`, `45s` or plain seconds; anything else gives `fallback`. */
export function durationSeconds(value: string | undefined, fallback: number): number {
  const match = /^\s*(\d+)\s*([smhd]?)\s*$/i.exec(value ?? '');
  if (!match) return fallback;
  const unit: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86400 };
  const seconds = Number(match[1]) * unit[match[2].toLowerCase()];
  return seconds > 0 ? seconds : fallback;
}

function intFrom(value: string | undefined, fallback: number): number {
  const parsed = value === undefined || value === '' ? NaN : Number(value);
  return Number.isInteger(parsed) && parsed >= 0 ? parsed : fallback;
}

function poolerFrom(value: string | undefined): Config['databasePooler'] {
  const pooler = (value ?? '').trim().toLowerCase();
  if (pooler === '' || pooler === 'none') return 'none';
  if (pooler === 'session' || pooler === 'transaction') return pooler;
  throw new Error(`APPBUILDER_DATABASE_POOLER must be none, session or transaction, not "${value}".`);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const bootstrapId = env.APPBUILDER_BOOTSTRAP_CLIENT_ID;
  const bootstrapSecret = env.APPBUILDER_BOOTSTRAP_CLIENT_SECRET;
  const relationLimit = Math.min(1000, Math.max(1, intFrom(env.APPBUILDER_RELATION_LIMIT, 100)));
  return {
    port: intFrom(env.PORT, 8080),
    host: env.HOST ?? '0.0.0.0',
    dataDir: resolve(env.APPBUILDER_DATA_DIR ?? './.appbuilder'),
    databaseUrl: env.DATABASE_URL || null,
    databasePooler: poolerFrom(env.APPBUILDER_DATABASE_POOLER),
    listenDatabaseUrl: env.APPBUILDER_LISTEN_DATABASE_URL || null,
    basePath: trimPath(env.APPBUILDER_BASE_PATH ?? '/v1'),
    projectsPath: trimPath(env.APPBUILDER_PROJECTS_PATH ?? '/v1'),
    appsPath: trimPath(env.APPBUILDER_APPS_PATH ?? '/apps'),
    appsDomain: (env.APPBUILDER_APPS_DOMAIN || 'localhost').toLowerCase().replace(/^\.+|\.+$/g, ''),
    publicUrl: env.APPBUILDER_PUBLIC_URL ?? null,
    bundleWaitSeconds: intFrom(env.APPBUILDER_BUNDLE_WAIT, 30),
    scheduleCheckSeconds: Math.min(45, Math.max(1, intFrom(env.APPBUILDER_SCHEDULE_CHECK, 30))),
    bodyLimitBytes: intFrom(env.APPBUILDER_BODY_LIMIT, 2 * 1024 * 1024),
    statementTimeoutMs: intFrom(env.APPBUILDER_STATEMENT_TIMEOUT, 10_000),
    relationLimit,
    embeddedIdLimit: Math.min(relationLimit, intFrom(env.APPBUILDER_EMBEDDED_ID_LIMIT, 10)),
    tokenTtlSeconds: intFrom(env.APPBUILDER_TOKEN_TTL, 3600),
    runRetentionSeconds: durationSeconds(env.APPBUILDER_RUN_RETENTION, 7 * 86400),
    tokenRateLimitPerMinute: intFrom(env.APPBUILDER_TOKEN_RATE_LIMIT, 30),
    appRateLimitPerMinute: intFrom(env.APPBUILDER_APP_RATE_LIMIT, 600),
    authRateLimitPerMinute: intFrom(env.APPBUILDER_AUTH_RATE_LIMIT, 30),
    authMaxFailures: intFrom(env.APPBUILDER_AUTH_MAX_FAILURES, 5),
    authLockoutSeconds: durationSeconds(env.APPBUILDER_AUTH_LOCKOUT, 60),
    metricsPublic: env.APPBUILDER_METRICS_PUBLIC !== 'false',
    requestLog: !/^(off|false|0|no)$/i.test(env.APPBUILDER_REQUEST_LOG ?? ''),
    requestLogRetentionDays: Math.max(1, intFrom(env.APPBUILDER_REQUEST_LOG_RETENTION, 7)),
    alertErrorRate: Math.min(1, Math.max(0, Number(env.APPBUILDER_ALERT_ERROR_RATE ?? '') || 0.05)),
    healthCheckSeconds: Math.max(1, intFrom(env.APPBUILDER_HEALTH_CHECK_INTERVAL, 30)),
    webhookRetrySeconds: durationSeconds(env.APPBUILDER_WEBHOOK_RETRY, 10),
    bootstrapClient: bootstrapId && bootstrapSecret ? { id: bootstrapId, secret: bootstrapSecret } : null,
    masterKey: env.APPBUILDER_MASTER_KEY || null,
    masterKeyFile: env.APPBUILDER_MASTER_KEY_FILE || null,
    tokenSecret: env.APPBUILDER_TOKEN_SECRET || null,
    logLevel: env.LOG_LEVEL ?? 'info',
    assistant: {
      url: env.APPBUILDER_ASSISTANT_URL || null,
      model: env.APPBUILDER_ASSISTANT_MODEL || null,
      key: env.APPBUILDER_ASSISTANT_KEY || null,
      timeoutMs: intFrom(env.APPBUILDER_ASSISTANT_TIMEOUT, 30_000),
    },
    storage: loadStorageConfig(env, resolve(env.APPBUILDER_DATA_DIR ?? './.appbuilder')),
    realtime: loadRealtimeSettings(env),
    accounts: loadAccountSettings(env, durationSeconds),
    extraction: loadSandboxSettings(env),
    ...overrides,
  };
}
