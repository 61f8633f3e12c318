import type { FastifyInstance } from 'fastify';
import type { Db } from '../storage/db.ts';
import { AppKeys } from './app-keys.ts';
import { DeploymentRegistry } from './registry.ts';
import { EndUserAuth } from './http/end-user-auth.ts';
import { AfterCommit } from './http/after-commit.ts';
import { generatedAppsPlugin } from './http/plugin.ts';
import type { BuilderOf } from './http/app-caller.ts';
import { recordAppWrites } from '../access/audit.ts';
import { resourceRoutes } from './http/resource-routes.ts';
import { aggregateRoutes } from './http/aggregate-route.ts';
import { importRoutes } from './http/import-routes.ts';
import { batchRoute } from './http/batch-route.ts';
import { exportRoutes } from './http/export-route.ts';
import { registerServedFrontend } from './http/frontend-route.ts';
import { authRoutes } from './http/auth-routes.ts';
import { accountProviderRoutes } from './http/account-provider-routes.ts';
import { mfaGate } from './accounts/mfa.ts';
import { accountRoutes } from './accounts/routes.ts';
import { AccountEmails } from './accounts/email-flows.ts';
import { AccountLimits } from './accounts/limits.ts';
import { Mailer } from './accounts/mailer.ts';
import { DEFAULT_ACCOUNT_SETTINGS, type AccountSettings } from './accounts/settings.ts';
import { docsRoutes } from './http/docs-routes.ts';
import { clientRoutes } from './http/client-route.ts';
import { AppRateLimits, NO_RATE_LIMITS, type RateLimitSettings } from './http/rate-limits.ts';
import { LoginThrottle } from './http/login-throttle.ts';
import { ActionRunner, type EventRunner } from './runs/runner.ts';
import { RunStore } from './runs/store.ts';
import { triggerRoutes } from './runs/http-triggers.ts';
import { fileRoutes } from './http/file-routes.ts';
import type { AppFiles } from '../files/app-files.ts';
import type { AppValuesSource } from '../secrets/app-values.ts';
import type { RequestLogWriter } from '../monitoring/request-log.ts';
import type { AppOrigins } from '../tools/app-origin.ts';

export type { EventRunner, TriggerEvent } from './runs/runner.ts';

/** The runtime of generated applications: what is served, who calls, and the routes. */
export interface Runtime {
  registry: DeploymentRegistry;
  auth: EndUserAuth;
  afterCommit: AfterCommit;
  /** Runs event and schedule triggers' actions (as the system), stores and counts each run. */
  runner: EventRunner;
  /** APPBUILDER_APP_RATE_LIMIT's counts: realtime streams are counted in them too (realtime/transports.ts). */
  rateLimits: AppRateLimits;
  plugin(appsPath: string): (fastify: FastifyInstance) => Promise<void>;
}

export interface RuntimeOptions {
  /** Seals the apps' end-user signing keys (secrets/master-key.ts). */
  masterKey: Buffer;
  /**
   * The holder of a request's management credentials (customer, role, projects, actor): checked on
   * every app route like on the management API (http/app-caller.ts); 401 when they are bad.
   */
  builderPrincipal: BuilderOf;
  /** APPBUILDER_APP_RATE_LIMIT and the sign-up and log-in limits; none when left out. */
  rateLimits?: RateLimitSettings;
  /** APPBUILDER_RELATION_LIMIT: entries of a to-many id array or expansion (default 100; DESIGN §6). */
  relationLimit?: number;
  /** APPBUILDER_EMBEDDED_ID_LIMIT: ids of a to-many id array inside an embedded record (default 10; DESIGN §6). */
  embeddedIdLimit?: number;
  /** The apps' variables and secrets (`env`, `secrets`; secrets/app-values.ts); none when left out. */
  appValues?: AppValuesSource;
  /** The request log's writer (monitoring/request-log.ts); none: requests are not logged. */
  requestLog?: RequestLogWriter;
  /** The apps' uploads, in their customers' storage (`POST /files`, `GET /files/{key}`; DESIGN §6); none: no file routes. */
  appFiles?: AppFiles;
  /** APPBUILDER_PUBLIC_URL: the origin of the file URLs the apps answer; else the request's. */
  publicUrl?: string | null;
  /** End-user sessions and mails (DESIGN §18; accounts/settings.ts); the defaults when left out. */
  accounts?: AccountSettings;
  /**
   * Each application's own origin, from configuration (tools/app-origin.ts): a request whose Host
   * names one is served as that application, OpenID sign-ins answer and return there, and account
   * mails link to it.
   */
  origins: AppOrigins;
}

export async function createRuntime(db: Db, options: RuntimeOptions): Promise<Runtime> {
  const registry = new DeploymentRegistry(db);
  const afterCommit = new AfterCommit();
  const accounts = options.accounts ?? DEFAULT_ACCOUNT_SETTINGS;
  const auth = new EndUserAuth(db, new AppKeys(db, options.masterKey), afterCommit, accounts);
  const mfa = mfaGate(db, options.masterKey);
  const runs = new RunStore(db);
  const runner = new ActionRunner(db, afterCommit, runs, {}, options.appValues);
  const limits = options.rateLimits ?? NO_RATE_LIMITS;
  const rateLimits = new AppRateLimits(limits.appPerMinute);
  const origins = options.origins ?? null;
  return {
    registry,
    auth,
    afterCommit,
    runner: { runEventTrigger: (served, trigger, event) => runner.runEventTrigger(served, trigger, event) },
    rateLimits,
    plugin: (appsPath) => async (fastify) => {
      // HTTP-trigger runs are stored just after their requests (runs/run-buffer.ts): written before the service stops.
      fastify.addHook('onClose', () => runs.flush());
      if (options.requestLog) fastify.addHook('onClose', () => options.requestLog!.flush());
      const mailer = new Mailer(fastify.log);
      // Mails still queued are dropped (their tokens expire unused); SMTP would hold the stop for minutes.
      fastify.addHook('onClose', async () => mailer.close());
      // Writes made with management credentials are audited once answered (access/audit.ts).
      recordAppWrites(fastify, db);
      const emails = new AccountEmails(db, mailer, accounts, origins);
      await generatedAppsPlugin({
        appsPath,
        registry,
        auth,
        builderPrincipal: options.builderPrincipal,
        appValues: options.appValues,
        rateLimits,
        requestLog: options.requestLog,
        publicUrl: options.publicUrl ?? null,
        origins: options.origins,
        db,
        sources: [
          ...(options.appFiles ? [fileRoutes(options.appFiles)] : []),
          resourceRoutes(db, afterCommit, { relationLimit: options.relationLimit, embeddedIdLimit: options.embeddedIdLimit }),
          aggregateRoutes(db),
          importRoutes(db, afterCommit),
          batchRoute(db, afterCommit, { relationLimit: options.relationLimit, embeddedIdLimit: options.embeddedIdLimit }),
          exportRoutes(db, { relationLimit: options.relationLimit, embeddedIdLimit: options.embeddedIdLimit }),
          authRoutes(auth, new LoginThrottle(limits), mfa, emails),
          accountProviderRoutes({ db, auth, afterCommit, mfa, limits, origins }),
          accountRoutes(auth, emails, new AccountLimits(limits.authPerMinute, accounts.accountPerMinute)),
          docsRoutes(appsPath, limits, { relationLimit: options.relationLimit, embeddedIdLimit: options.embeddedIdLimit }),
          clientRoutes(),
          triggerRoutes(runner),
        ],
      })(fastify);
      registerServedFrontend(fastify, { appsPath, db, registry, origins: options.origins });
    },
  };
}
