import type { Kysely } from 'kysely';
import { runStatements } from './statements.ts';

/**
 * Monitoring of running applications (DESIGN §19).
 * - `request_log`: one row per generated-app request, partitioned by day (range on `at`); the
 *   day partitions are created by the writer (monitoring/partitions.ts) and dropped whole when
 *   older than APPBUILDER_REQUEST_LOG_RETENTION, so retention never deletes rows one by one.
 *   Route templates only, never URLs, query strings or bodies.
 * - `app_webhooks`: the optional per-application webhook (URL, events, secret sealed by the master key).
 * - `deployment_health`: the last health the checker saw per served version, to notice changes.
 * - `webhook_deliveries`: every event to send, retried with backoff until delivered or given up;
 *   `dedupe_key` makes an event (a failed job) queued once however many processes notice it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, STATEMENTS);
}

const STATEMENTS = `
    create table appbuilder.request_log (
      id uuid not null,
      at timestamptz not null,
      application_id uuid not null,
      server_version text not null,
      method text not null,
      route text not null,
      status smallint not null,
      duration_ms real not null,
      user_id text,
      bytes integer,
      error_type text
    ) partition by range (at);
    create index request_log_application_idx on appbuilder.request_log (application_id, at desc, id desc);
    create index request_log_version_idx on appbuilder.request_log (application_id, server_version, at desc);
    create table appbuilder.app_webhooks (
      application_id uuid primary key references appbuilder.applications(id) on delete cascade,
      url text not null,
      events jsonb not null,
      sealed_secret text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create table appbuilder.deployment_health (
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      server_version text not null,
      health text not null check (health in ('ok', 'degraded')),
      error_rate double precision not null,
      changed_at timestamptz not null default now(),
      primary key (application_id, server_version)
    );
    create table appbuilder.webhook_deliveries (
      id uuid primary key,
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      event text not null,
      dedupe_key text,
      payload jsonb not null,
      status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null default now(),
      last_error text,
      last_status integer,
      created_at timestamptz not null default now(),
      delivered_at timestamptz
    );
    create unique index webhook_deliveries_dedupe_idx on appbuilder.webhook_deliveries (application_id, dedupe_key);
    create index webhook_deliveries_due_idx on appbuilder.webhook_deliveries (next_attempt_at) where status = 'pending';
`;
