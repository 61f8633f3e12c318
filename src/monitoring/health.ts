// Health of each served version (DESIGN §19): the share of 5xx answers over the last 5 minutes,
// `degraded` past APPBUILDER_ALERT_ERROR_RATE, and when it was last called. Read from the request
// log when an Application is answered, and by the checker (checkHealth) that notices changes and
// queues the `deployment.degraded` / `deployment.recovered` webhook deliveries.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Executor } from '../storage/db.ts';
import { toIso } from '../storage/sql.ts';
import { queueDelivery, type WebhookEvent } from './webhooks.ts';

export const HEALTH_WINDOW_MS = 5 * 60_000;
// Any constant; one checker at a time across processes.
const HEALTH_LOCK_KEY = 7_311_044;

export type Health = 'ok' | 'degraded';

export interface DeploymentHealth {
  lastRequestAt: string | null;
  /** 5xx answers over all answers of the last 5 minutes (0 without requests). */
  errorRate: number;
  /** Requests of the last 5 minutes. */
  recentRequests: number;
  health: Health;
}

interface Row {
  application_id: string;
  server_version: string;
  last_at: Date | string | null;
  requests: number | string;
  errors: number | string;
}

function toHealth(row: Row, threshold: number): DeploymentHealth {
  const requests = Number(row.requests);
  const errorRate = requests === 0 ? 0 : Number(row.errors) / requests;
  return { lastRequestAt: toIso(row.last_at) ?? null, errorRate, recentRequests: requests, health: errorRate > threshold ? 'degraded' : 'ok' };
}

async function healthRows(executor: Kysely<unknown>, where: RawBuilder<unknown>, now: Date): Promise<Row[]> {
  const since = new Date(now.getTime() - HEALTH_WINDOW_MS).toISOString();
  const result = await sql<Row>`
    select d.application_id, d.server_version,
      (select max(r.at) from appbuilder.request_log r where r.application_id = d.application_id and r.server_version = d.server_version) as last_at,
      (select count(*) from appbuilder.request_log r where r.application_id = d.application_id and r.server_version = d.server_version and r.at > ${since}) as requests,
      (select count(*) from appbuilder.request_log r where r.application_id = d.application_id and r.server_version = d.server_version and r.at > ${since} and r.status >= 500) as errors
    from appbuilder.deployments d where ${where}`.execute(executor);
  return result.rows;
}

/** The health of every deployment of `applicationId`, by serverVersion. */
export async function deploymentHealth(executor: Executor, applicationId: string, threshold: number, now = new Date()): Promise<Map<string, DeploymentHealth>> {
  const rows = await healthRows(executor as unknown as Kysely<unknown>, sql`d.application_id = ${applicationId}`, now);
  return new Map(rows.map((row) => [row.server_version, toHealth(row, threshold)]));
}

/**
 * One round of the checker: for every served version of an application with a webhook, compare its
 * health with the one last seen and queue an event when it changed (a version first seen degraded
 * counts as a change). Failed jobs of those applications are queued too (once each: dedupe key).
 * Resolves to the number of events queued; 0 when another process is checking right now.
 */
export async function checkHealth(executor: Executor, threshold: number, now = new Date()): Promise<number> {
  return executor.transaction().execute(async (trx) => {
    const db = trx as unknown as Kysely<unknown>;
    const locked = await sql<{ ok: boolean }>`select pg_try_advisory_xact_lock(${HEALTH_LOCK_KEY}) as ok`.execute(db);
    if (!locked.rows[0]?.ok) return 0;
    let queued = 0;
    const rows = await healthRows(
      db,
      sql`d.state = 'active' and exists (select 1 from appbuilder.app_webhooks w where w.application_id = d.application_id)`,
      now,
    );
    const seen = await sql<{ application_id: string; server_version: string; health: Health }>`
      select h.application_id, h.server_version, h.health from appbuilder.deployment_health h
      join appbuilder.app_webhooks w on w.application_id = h.application_id`.execute(db);
    const previous = new Map(seen.rows.map((r) => [`${r.application_id}@${r.server_version}`, r.health]));
    for (const row of rows) {
      const health = toHealth(row, threshold);
      const before = previous.get(`${row.application_id}@${row.server_version}`);
      if (before === health.health || (before === undefined && health.health === 'ok')) {
        if (before === undefined) await saveHealth(db, row, health);
        continue;
      }
      await saveHealth(db, row, health);
      const event: WebhookEvent = health.health === 'degraded' ? 'deployment.degraded' : 'deployment.recovered';
      const data = { serverVersion: row.server_version, health: health.health, errorRate: health.errorRate, recentRequests: health.recentRequests, threshold, lastRequestAt: health.lastRequestAt };
      if (await queueDelivery(db, row.application_id, event, data, null, now)) queued++;
    }
    const failed = await sql<{ id: string; application_id: string; job_type: string; error_message: string | null; completed_at: Date | string }>`
      select j.id, j.application_id, j.job_type, j.error_message, j.completed_at from appbuilder.jobs j
      join appbuilder.app_webhooks w on w.application_id = j.application_id
      where j.status = 'failed' and j.completed_at >= w.created_at and j.completed_at > ${new Date(now.getTime() - 86_400_000).toISOString()}`.execute(db);
    for (const job of failed.rows) {
      const data = { jobId: job.id, jobType: job.job_type, errorMessage: job.error_message, completedAt: toIso(job.completed_at) };
      if (await queueDelivery(db, job.application_id, 'job.failed', data, `job.failed:${job.id}`, now)) queued++;
    }
    return queued;
  });
}

async function saveHealth(db: Kysely<unknown>, row: Row, health: DeploymentHealth): Promise<void> {
  await sql`insert into appbuilder.deployment_health (application_id, server_version, health, error_rate, changed_at)
    values (${row.application_id}, ${row.server_version}, ${health.health}, ${health.errorRate}, now())
    on conflict (application_id, server_version) do update set health = excluded.health, error_rate = excluded.error_rate, changed_at = now()`.execute(db);
}
