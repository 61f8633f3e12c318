import type { FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import { openPglite, openPostgres, type Db } from './storage/db.ts';
import { lockDataDir } from './storage/lock.ts';
import { migrateControlPlane } from './storage/migrate.ts';
import { bootstrapFirstClient, createServices, type Services } from './services/index.ts';
import { buildServer } from './api/server.ts';
import { dropApplicationData } from './runtime/data-schema.ts';
import { JobQueue, type JobQueueOptions } from './jobs/queue.ts';
import { JobStore } from './jobs/store.ts';
import { registerJobHandlers } from './services/job-handlers.ts';
import { createRuntime } from './runtime/index.ts';
import type { BuilderOf } from './runtime/http/app-caller.ts';
import { listenForServedChanges } from './runtime/served-notices.ts';
import { startRunRetention } from './runtime/runs/retention.ts';
import { startEvents, type EventsOptions } from './runtime/events/index.ts';
import { Mailer } from './runtime/accounts/mailer.ts';
import { loadMasterKey, masterKeyFileFor } from './secrets/master-key.ts';
import { requestLogWriter } from './monitoring/request-log.ts';
import { AppValuesCache } from './secrets/app-values.ts';
import { createFileService } from './services/storage.ts';
import { AppFiles } from './files/app-files.ts';
import { startRealtime, type Realtime } from './realtime/index.ts';
import { AppOrigins } from './tools/app-origin.ts';

/** A running service: its store, services and HTTP server, and how to stop them. */
export interface Platform {
  db: Db;
  services: Services;
  server: FastifyInstance;
  /** Realtime subscribers served by this process (DESIGN §17); null when it does not serve the apps. */
  realtime: Realtime | null;
  /** Each application's own origin (`http://{id}.{appsDomain}:{port}`), built from configuration, never from a request. */
  origins: AppOrigins;
  close(): Promise<void>;
}

export async function openDb(config: Config): Promise<{ db: Db; release: () => void }> {
  if (config.databaseUrl) return { db: await openPostgres(config.databaseUrl, undefined, config.statementTimeoutMs, { pooler: config.databasePooler, listenConnectionString: config.listenDatabaseUrl }), release: () => {} };
  const release = lockDataDir(config.dataDir);
  try {
    return { db: await openPglite(config.dataDir), release };
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * Opens the store, migrates it, builds the services and the HTTP server.
 * `db` may be handed in (tests share one embedded instance per file).
 */
export type Role = 'all' | 'api' | 'runtime' | 'worker';

export interface PlatformOptions {
  db?: Db;
  logger?: false | { level: string; stream?: NodeJS.WritableStream };
  /**
   * `all` (the default) runs everything. Over PostgreSQL the roles split it across processes
   * (DESIGN §1): `api` serves the management API, `runtime` the generated apps, `worker` takes
   * jobs, runs schedules and dispatches events (no HTTP). `api` and `runtime` only send jobs.
   */
  role?: Role;
  /** Queue timing (tests shorten it). */
  queue?: Partial<JobQueueOptions>;
  /** Event dispatch timing (tests shorten it). */
  events?: Pick<EventsOptions, 'pollSeconds' | 'reconcileSeconds' | 'retryDelaySeconds'>;
}

export async function startPlatform(config: Config, options: PlatformOptions = {}): Promise<Platform> {
  const opened = options.db ? { db: options.db, release: () => {} } : await openDb(config);
  const { db } = opened;
  try {
    await migrateControlPlane(db);
    // First, so a refusal (PostgreSQL without a configured key) starts nothing else.
    // The key file beside the data dir only when this process opened the embedded store itself.
    const dataDirKeyFile = !options.db && !config.databaseUrl ? masterKeyFileFor(config.dataDir) : null;
    const { key: masterKey } = await loadMasterKey(db, { configured: config.masterKey, configuredFile: config.masterKeyFile, dataDirKeyFile });
    // `serve` refuses a role on the embedded store (one process must be every role there); in-process
    // callers such as the SDK build may still start only the management API over an in-memory store.
    const role = options.role ?? 'all';
    const jobs = new JobStore(db);
    const work = role === 'all' || role === 'worker';
    const cron = { cronMonitorIntervalSeconds: config.scheduleCheckSeconds, cronWorkerIntervalSeconds: Math.min(5, config.scheduleCheckSeconds) };
    // Only working processes run pg-boss's schedule pass; every process may still write schedules.
    const queue = await JobQueue.start(db, jobs, { work, schedule: work, ...cron, ...options.queue });
    // Builders calling an app with management credentials act as its administrator when their
    // role and projects admit it (runtime/http/app-caller.ts): authenticated as the management API
    // authenticates, once per request, so a revoked token is refused on its next request.
    const builderPrincipal: BuilderOf = (request) => {
      const key = request.headers['x-svc-api-client'];
      return services.tokens.authenticate(request.headers.authorization, Array.isArray(key) ? key[0] : key);
    };
    // The apps' variables and secrets, cached here and forgotten on any process's change (NOTIFY).
    const appValues = new AppValuesCache(db, masterKey);
    // One store of files: the customers' (storage API) and the generated apps' uploads (DESIGN §6, §12).
    const files = createFileService(db, config.storage, masterKey);
    // The port is the listening one (tests listen on port 0): read when an origin is built.
    const listening: { server: FastifyInstance | null } = { server: null };
    const origins = new AppOrigins(config, () => listeningPort(listening.server) ?? config.port);
    const runtime = await createRuntime(db, {
      masterKey,
      appValues,
      appFiles: new AppFiles(db, files, config.storage.appMaxFileBytes),
      publicUrl: config.publicUrl,
      accounts: config.accounts,
      origins,
      requestLog: requestLogFor(db, config),
      builderPrincipal,
      relationLimit: config.relationLimit,
      embeddedIdLimit: config.embeddedIdLimit,
      rateLimits: {
        appPerMinute: config.appRateLimitPerMinute,
        authPerMinute: config.authRateLimitPerMinute,
        authMaxFailures: config.authMaxFailures,
        authLockoutSeconds: config.authLockoutSeconds,
      },
    });
    const services = await createServices(db, config, { masterKey, dropApplicationData, jobs, queue, registry: runtime.registry, appValues, files, origins });
    const bootstrapped = await bootstrapFirstClient(services);
    const servesApps = role === 'all' || role === 'runtime';
    // The runtime role serves realtime subscribers; any role may write the changes they receive.
    const realtime = servesApps
      ? await startRealtime(db, {
          settings: config.realtime,
          appsPath: config.appsPath,
          registry: runtime.registry,
          auth: runtime.auth,
          builderPrincipal,
          publicUrl: config.publicUrl,
          rateLimits: runtime.rateLimits,
          origins,
          relationLimit: config.relationLimit,
          embeddedIdLimit: config.embeddedIdLimit,
        })
      : null;
    const server = await buildServer({
      services,
      logger: options.logger ?? false,
      management: role !== 'runtime',
      appOrigins: origins,
      extraPlugins: servesApps ? [runtime.plugin(config.appsPath), ...(realtime ? [realtime.plugin] : [])] : [],
    });
    listening.server = server;
    if (bootstrapped === 'exists' || bootstrapped === 'ignored') {
      // The variables only name the first client of an empty store; the secret is never logged.
      const client = config.bootstrapClient?.id;
      if (bootstrapped === 'exists') server.log.info({ apiClient: client }, `APPBUILDER_BOOTSTRAP_CLIENT_ID: the store is not empty and already holds the API client ${client}; its secret is not changed`);
      else server.log.warn({ apiClient: client }, `APPBUILDER_BOOTSTRAP_CLIENT_ID is ignored: the store is not empty and has no API client ${client}, so logging in with it fails (use a client of this store, or an empty APPBUILDER_DATA_DIR)`);
    }
    // Deployments and unpublishes made by any process reach this one's registry (LISTEN/NOTIFY).
    const notices = await listenForServedChanges(db, runtime.registry, server.log);
    const configNotices = await appValues.listen(server.log);
    // Working processes delete runs older than APPBUILDER_RUN_RETENTION.
    const runRetention =
      role === 'all' || role === 'worker'
        ? startRunRetention(db, config.runRetentionSeconds, { onError: (error) => server.log.error({ err: error }, 'run retention sweep failed') })
        : null;
    // Working processes keep the request log's partitions and retention, check health and send webhooks.
    const monitoring = role === 'all' || role === 'worker' ? services.monitoring.start(server.log) : null;
    const { registry, afterCommit, runner } = runtime;
    // The mails of email.send, sent by working processes from the outbox (runtime/events/mail.ts).
    const actionMailer = new Mailer(server.log);
    const mail = { mailer: actionMailer, values: appValues, smtpUrl: config.accounts.smtpUrl, mailFrom: config.accounts.mailFrom };
    const events = await startEvents({ db, queue, registry, afterCommit, runner, work, logger: server.log, mail, ...options.events });
    // Publishing and unpublishing move the application's schedules to the version handling events.
    services.deployments.onServedChange((applicationId) =>
      events.schedules.sync(applicationId).catch((error: unknown) => server.log.error({ err: error, applicationId }, 'could not sync schedules')),
    );
    // Last, so that a deployment job taken at once already moves the schedules.
    await registerJobHandlers(services);
    return {
      db,
      services,
      server,
      realtime,
      origins,
      close: async () => {
        // First: open streams would hold the server's close.
        await realtime?.close();
        await server.close();
        await notices.close();
        await configNotices.close();
        runRetention?.stop();
        monitoring?.stop();
        await events.stop();
        await queue.stop();
        actionMailer.close();
        await services.specifications.close();
        if (!options.db) await db.close();
        opened.release();
      },
    };
  } catch (error) {
    if (!options.db) await db.close();
    opened.release();
    throw error;
  }
}

function listeningPort(server: FastifyInstance | null): number | null {
  const address = server?.server.address();
  return address && typeof address === 'object' ? address.port : null;
}

/** Why `--role` needs PostgreSQL. */
export function roleNeedsPostgres(role: Role): string {
  return (
    `--role ${role} needs PostgreSQL (set DATABASE_URL): the embedded store admits one process, which then runs every role. ` +
    'Start without --role (or with --role all) to use the embedded store.'
  );
}

/** The request log's writer, on or off as APPBUILDER_REQUEST_LOG says (a bench turns it on and off in one run). */
function requestLogFor(db: Db, config: Config) {
  const writer = requestLogWriter(db);
  writer.enabled = config.requestLog;
  return writer;
}
