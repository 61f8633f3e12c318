// The optional per-application webhook (DESIGN §19): `deployment.degraded`, `deployment.recovered`
// and `job.failed` events, each POSTed as JSON and signed with HMAC-SHA256 under the webhook's
// secret (sealed at rest under the application's data key, DESIGN §11). Deliveries are rows: any working process takes the
// due ones (SKIP LOCKED), and a failed attempt is retried after APPBUILDER_WEBHOOK_RETRY seconds,
// doubled each time, up to MAX_ATTEMPTS. The request goes through the same outbound guard as
// `http.request` (no private addresses unless APPBUILDER_HTTP_ALLOW lists them).
import { createHmac } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Executor } from '../storage/db.ts';
import { toIso } from '../storage/sql.ts';
import { uuidv7 } from '../tools/ids.ts';
import { guardedRequest } from '../runtime/actions/http/client.ts';
import { allowListFromEnv } from '../runtime/actions/http/address-guard.ts';

export const WEBHOOK_EVENTS = ['deployment.degraded', 'deployment.recovered', 'job.failed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const SIGNATURE_HEADER = 'x-appbuilder-signature';
export const MAX_ATTEMPTS = 8;
const DELIVERY_TIMEOUT_MS = 10_000;
/** A taken delivery is someone's for this long; a process that died with it leaves it to others after. */
const LEASE_SECONDS = 60;

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the receiver recomputes it with its
 * secret, compares in constant time, and refuses an old `t` (replays).
 */
export function signPayload(secret: string, body: string, unixSeconds: number): string {
  const digest = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${digest}`;
}

/**
 * Queues `event` for the application's webhook when it has one that takes the event; resolves to
 * whether a delivery was queued (false too when `dedupeKey` was queued before).
 */
export async function queueDelivery(
  db: Kysely<unknown>,
  applicationId: string,
  event: WebhookEvent,
  data: Record<string, unknown>,
  dedupeKey: string | null,
  now = new Date(),
): Promise<boolean> {
  const id = uuidv7();
  const payload = { id, event, applicationId, createdAt: now.toISOString(), data };
  const result = await sql`
    insert into appbuilder.webhook_deliveries (id, application_id, event, dedupe_key, payload)
    select ${id}, w.application_id, ${event}, ${dedupeKey}, cast(${JSON.stringify(payload)} as jsonb)
    from appbuilder.app_webhooks w where w.application_id = ${applicationId} and w.events @> cast(${JSON.stringify([event])} as jsonb)
    on conflict (application_id, dedupe_key) do nothing`.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}

interface Claimed {
  id: string;
  application_id: string;
  event: string;
  payload: unknown;
  attempts: number;
  url: string;
  sealed_secret: string;
}

export interface DeliveryOptions {
  /** The webhook's secret from its sealed form (webhook-secret.ts). */
  openSecret(applicationId: string, sealed: string): Promise<string>;
  retrySeconds: number;
  /** Hosts and networks the outbound guard lets through (APPBUILDER_HTTP_ALLOW). */
  allow?: readonly string[];
}

/** Sends every due delivery (up to `limit`); resolves to how many were delivered now. */
export async function deliverDue(executor: Executor, options: DeliveryOptions, limit = 20): Promise<number> {
  const claimed = await sql<Claimed>`
    with due as (
      select id from appbuilder.webhook_deliveries
      where status = 'pending' and next_attempt_at <= now()
      order by next_attempt_at limit ${limit} for update skip locked
    )
    update appbuilder.webhook_deliveries d
    set attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => ${LEASE_SECONDS})
    from due, appbuilder.app_webhooks w
    where d.id = due.id and w.application_id = d.application_id
    returning d.id, d.application_id, d.event, d.payload, d.attempts, w.url, w.sealed_secret`.execute(executor);
  let delivered = 0;
  for (const row of claimed.rows) {
    const body = typeof row.payload === 'string' ? row.payload : JSON.stringify(row.payload);
    let status: number | null = null;
    let failure: string | null = null;
    try {
      const secret = await options.openSecret(row.application_id, row.sealed_secret);
      const response = await guardedRequest({
        method: 'POST',
        url: row.url,
        headers: {
          'content-type': 'application/json',
          'x-appbuilder-event': row.event,
          'x-appbuilder-delivery': row.id,
          [SIGNATURE_HEADER]: signPayload(secret, body, Math.floor(Date.now() / 1000)),
        },
        body,
        timeoutMs: DELIVERY_TIMEOUT_MS,
        allow: options.allow ?? allowListFromEnv(),
        hops: 0,
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      });
      status = response.status;
      if (status < 200 || status > 299) failure = `The receiver answered ${status}.`;
    } catch (error) {
      failure = (error as Error).message;
    }
    if (failure === null) {
      delivered++;
      await sql`update appbuilder.webhook_deliveries set status = 'delivered', delivered_at = now(), last_status = ${status}, last_error = null
        where id = ${row.id}`.execute(executor);
    } else {
      const attempts = Number(row.attempts);
      const wait = options.retrySeconds * 2 ** (attempts - 1);
      await sql`update appbuilder.webhook_deliveries
        set status = ${attempts >= MAX_ATTEMPTS ? 'failed' : 'pending'}, last_status = ${status}, last_error = ${failure.slice(0, 500)},
          next_attempt_at = now() + make_interval(secs => ${wait})
        where id = ${row.id}`.execute(executor);
    }
  }
  return delivered;
}

/** A delivery as the API lists it. */
export interface Delivery {
  id: string;
  event: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  nextAttemptAt: string | null;
}

export async function recentDeliveries(executor: Executor, applicationId: string, limit = 20): Promise<Delivery[]> {
  const result = await sql<{
    id: string;
    event: string;
    status: Delivery['status'];
    attempts: number;
    last_status: number | null;
    last_error: string | null;
    created_at: Date;
    delivered_at: Date | null;
    next_attempt_at: Date;
  }>`select id, event, status, attempts, last_status, last_error, created_at, delivered_at, next_attempt_at
     from appbuilder.webhook_deliveries where application_id = ${applicationId} order by created_at desc, id desc limit ${limit}`.execute(executor);
  return result.rows.map((r) => ({
    id: r.id,
    event: r.event,
    status: r.status,
    attempts: Number(r.attempts),
    lastStatus: r.last_status,
    lastError: r.last_error,
    createdAt: toIso(r.created_at)!,
    deliveredAt: toIso(r.delivered_at) ?? null,
    nextAttemptAt: r.status === 'pending' ? (toIso(r.next_attempt_at) ?? null) : null,
  }));
}
