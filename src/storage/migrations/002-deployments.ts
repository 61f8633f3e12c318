import type { Kysely } from 'kysely';
import { runStatements } from './statements.ts';

/**
 * Served versions, the definition each data schema reflects, applied migrations,
 * per-application signing keys (sealed) and the outbox of data-change events.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, STATEMENTS);
}

const STATEMENTS = `
    create table appbuilder.deployments (
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      server_version text not null,
      state text not null,
      published_at timestamptz,
      unpublished_at timestamptz,
      primary key (application_id, server_version)
    );
    create table appbuilder.app_schemas (
      application_id uuid primary key references appbuilder.applications(id) on delete cascade,
      server_version text not null,
      scode jsonb not null,
      updated_at timestamptz not null default now()
    );
    create table appbuilder.app_migrations (
      id uuid primary key,
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      server_version text not null,
      statements jsonb not null,
      summary jsonb not null,
      applied_at timestamptz not null default now()
    );
    create index app_migrations_application_idx on appbuilder.app_migrations(application_id, applied_at);
    create table appbuilder.app_keys (
      application_id uuid primary key references appbuilder.applications(id) on delete cascade,
      sealed_jwt_key text not null
    );
    create table appbuilder.events (
      id uuid primary key,
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      name text not null,
      payload jsonb not null,
      previous jsonb,
      created_at timestamptz not null default now(),
      dispatched_at timestamptz
    );
    create index events_pending_idx on appbuilder.events(created_at) where dispatched_at is null;
`;
