import type { Kysely } from 'kysely';
import { runStatements } from './statements.ts';

/**
 * Action runs (DESIGN §7): one row per run of an action, whatever started it (an HTTP
 * trigger, an event, a schedule), with its input, every step and the outcome. Listed per
 * application, newest first, filtered by trigger, action or status; deleted after the
 * retention time (`APPBUILDER_RUN_RETENTION`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, STATEMENTS);
}

const STATEMENTS = `
    create table appbuilder.runs (
      id uuid primary key,
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      server_version text not null,
      trigger_id text,
      action_id text not null,
      status text not null check (status in ('succeeded', 'failed')),
      input jsonb not null,
      steps jsonb not null,
      result jsonb,
      response jsonb,
      error jsonb,
      started_at timestamptz not null,
      completed_at timestamptz not null,
      duration_ms double precision not null
    );
    create index runs_application_idx on appbuilder.runs (application_id, id desc);
    create index runs_application_trigger_idx on appbuilder.runs (application_id, trigger_id, id desc);
    create index runs_application_action_idx on appbuilder.runs (application_id, action_id, id desc);
    create index runs_application_status_idx on appbuilder.runs (application_id, status, id desc);
    create index runs_started_at_idx on appbuilder.runs (started_at);
`;
