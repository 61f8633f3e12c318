// Monitoring of running applications (DESIGN §19), as the management API and the service use it:
// an application's logs, metrics, health and webhook, each behind the customer check; and the
// background work of a working process (partitions, retention, health checks, deliveries).
import { sql } from 'kysely';
import { badRequest } from '../errors.ts';
import type { Config } from '../config.ts';
import type { Db } from '../storage/db.ts';
import { toIso } from '../storage/sql.ts';
import { randomToken } from '../tools/ids.ts';
import { DataKeys } from '../secrets/data-keys.ts';
import { open, seal } from '../secrets/envelope.ts';
import type { ApplicationService } from '../services/applications/service.ts';
import { checkHealth, deploymentHealth, type DeploymentHealth } from './health.ts';
import { dropExpiredPartitions, ensureDayPartitions } from './partitions.ts';
import { jobSeries, listLogs, metricsRange, requestSeries, runSeries, type LogFilters } from './queries.ts';
import { requestLogWriter } from './request-log.ts';
import { deliverDue, recentDeliveries, WEBHOOK_EVENTS, type Delivery, type WebhookEvent } from './webhooks.ts';

const HOUR_MS = 3_600_000;

export interface Webhook {
  url: string;
  events: WebhookEvent[];
  createdAt: string;
  updatedAt: string;
  /** Only in the answer that generated it: the signing secret, shown once. */
  secret?: string;
  deliveries?: Delivery[];
}

interface Logger {
  error(object: unknown, message: string): void;
}

/** Additional data binding a sealed webhook secret to its application. */
const secretAad = (applicationId: string) => `${applicationId}:webhook-secret`;

export class MonitoringService {
  // Webhook secrets are sealed under the application's data key, so rotate-master-key (which
  // re-wraps data keys) keeps them readable.
  private readonly dataKeys: DataKeys;

  constructor(
    private readonly db: Db,
    private readonly config: Config,
    private readonly applications: ApplicationService,
    masterKey: Buffer,
  ) {
    this.dataKeys = new DataKeys(db, masterKey);
  }

  private async openSecret(applicationId: string, sealed: string): Promise<string> {
    return open(sealed, await this.dataKeys.key({ kind: 'application', id: applicationId }), secretAad(applicationId)).toString('utf8');
  }

  private async check(customerId: string, applicationId: string): Promise<void> {
    await this.applications.findRow(this.db.kysely, customerId, applicationId);
  }

  async logs(customerId: string, applicationId: string, filters: LogFilters) {
    await this.check(customerId, applicationId);
    // Rows of requests already answered are listed: write what this process still holds.
    await requestLogWriter(this.db).flush();
    return listLogs(this.db.kysely, applicationId, filters);
  }

  async metrics(customerId: string, applicationId: string, query: { from?: string; to?: string; step?: number }) {
    await this.check(customerId, applicationId);
    const range = metricsRange(query);
    await requestLogWriter(this.db).flush();
    const [requests, runs, jobs] = await Promise.all([
      requestSeries(this.db.kysely, applicationId, range),
      runSeries(this.db.kysely, applicationId, range),
      jobSeries(this.db.kysely, applicationId, range),
    ]);
    return { from: range.from.toISOString(), to: range.to.toISOString(), step: range.stepSeconds, requests, runs, jobs };
  }

  /** Health of each deployment, for the Application's `status.deployments` (no customer check: the caller made it). */
  async health(applicationId: string): Promise<Map<string, DeploymentHealth>> {
    // As for the logs: requests already answered count, though their rows may still be buffered.
    await requestLogWriter(this.db).flush();
    return deploymentHealth(this.db.kysely, applicationId, this.config.alertErrorRate);
  }

  async getWebhook(customerId: string, applicationId: string): Promise<Webhook | null> {
    await this.check(customerId, applicationId);
    const row = await this.webhookRow(applicationId);
    if (!row) return null;
    return { ...row, deliveries: await recentDeliveries(this.db.kysely, applicationId) };
  }

  /** Creates or replaces the webhook; `created` tells which. A secret is generated (and returned once) when none is given. */
  async putWebhook(customerId: string, applicationId: string, input: { url: string; events?: WebhookEvent[]; secret?: string }): Promise<{ webhook: Webhook; created: boolean }> {
    await this.check(customerId, applicationId);
    let url: URL;
    try {
      url = new URL(input.url);
    } catch {
      throw badRequest('The webhook URL is not a URL.', [{ path: '/url', message: 'is not an absolute URL' }]);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw badRequest('The webhook URL must be http or https.', [{ path: '/url', message: 'must be http or https' }]);
    if (url.username || url.password) throw badRequest('The webhook URL must not carry credentials.', [{ path: '/url', message: 'must not carry a user or password' }]);
    const events = [...new Set(input.events ?? WEBHOOK_EVENTS)];
    const secret = input.secret ?? `whsec_${randomToken(24)}`;
    const sealed = seal(secret, await this.dataKeys.key({ kind: 'application', id: applicationId }), secretAad(applicationId));
    const result = await sql<{ created: boolean }>`
      insert into appbuilder.app_webhooks (application_id, url, events, sealed_secret)
      values (${applicationId}, ${url.toString()}, cast(${JSON.stringify(events)} as jsonb), ${sealed})
      on conflict (application_id) do update set url = excluded.url, events = excluded.events, sealed_secret = excluded.sealed_secret, updated_at = now()
      returning (xmax = 0) as created`.execute(this.db.kysely);
    const webhook = (await this.webhookRow(applicationId))!;
    return { webhook: { ...webhook, ...(input.secret === undefined ? { secret } : {}) }, created: Boolean(result.rows[0]?.created) };
  }

  /** Removes the webhook and its pending deliveries; false when there was none. */
  async deleteWebhook(customerId: string, applicationId: string): Promise<boolean> {
    await this.check(customerId, applicationId);
    return this.db.kysely.transaction().execute(async (trx) => {
      await sql`delete from appbuilder.webhook_deliveries where application_id = ${applicationId} and status = 'pending'`.execute(trx);
      const deleted = await sql`delete from appbuilder.app_webhooks where application_id = ${applicationId}`.execute(trx);
      return Number(deleted.numAffectedRows ?? 0) > 0;
    });
  }

  private async webhookRow(applicationId: string): Promise<Omit<Webhook, 'secret' | 'deliveries'> | null> {
    const result = await sql<{ url: string; events: WebhookEvent[] | string; created_at: Date; updated_at: Date }>`
      select url, events, created_at, updated_at from appbuilder.app_webhooks where application_id = ${applicationId}`.execute(this.db.kysely);
    const row = result.rows[0];
    if (!row) return null;
    const events = typeof row.events === 'string' ? (JSON.parse(row.events) as WebhookEvent[]) : row.events;
    return { url: row.url, events, createdAt: toIso(row.created_at)!, updatedAt: toIso(row.updated_at)! };
  }

  /** One retention sweep: drops the request log's expired day partitions; resolves to the days dropped. */
  async sweepRequestLog(now = new Date()): Promise<string[]> {
    const dropped = await dropExpiredPartitions(this.db.kysely, this.config.requestLogRetentionDays, now);
    if (dropped.length > 0) requestLogWriter(this.db).forgetPartitions();
    return dropped;
  }

  /**
   * The background work of a working process: today's and tomorrow's partitions and the retention
   * sweep (hourly), the health check (APPBUILDER_HEALTH_CHECK_INTERVAL) and webhook deliveries.
   */
  start(logger: Logger): { stop(): void } {
    const { healthCheckSeconds, webhookRetrySeconds, alertErrorRate } = this.config;
    const guard = (what: string, work: () => Promise<unknown>) => () =>
      void work().catch((error: unknown) => logger.error({ err: error }, `monitoring: ${what} failed`));
    const housekeeping = guard('request log partitions', async () => {
      await ensureDayPartitions(this.db.kysely, [new Date(), new Date(Date.now() + 24 * HOUR_MS)]);
      await this.sweepRequestLog();
    });
    const health = guard('health check', async () => {
      await requestLogWriter(this.db).flush();
      return checkHealth(this.db.kysely, alertErrorRate);
    });
    const deliver = guard('webhook delivery', () => deliverDue(this.db.kysely, { openSecret: (id, sealed) => this.openSecret(id, sealed), retrySeconds: webhookRetrySeconds }));
    housekeeping();
    const timers = [
      setInterval(housekeeping, HOUR_MS),
      setInterval(health, healthCheckSeconds * 1000),
      setInterval(deliver, Math.min(5, healthCheckSeconds, webhookRetrySeconds) * 1000),
    ];
    for (const timer of timers) timer.unref();
    return { stop: () => timers.forEach(clearInterval) };
  }
}
