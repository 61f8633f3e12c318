import type { Kysely } from 'kysely';
import { runStatements } from './statements.ts';

/** Customers, API clients, projects, applications, their versions, jobs and settings. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, STATEMENTS);
}

const STATEMENTS = `
    create table appbuilder.settings (
      key text primary key,
      value text not null
    );
    create table appbuilder.customers (
      id uuid primary key,
      name text not null,
      created_at timestamptz not null default now()
    );
    create table appbuilder.api_clients (
      id uuid primary key,
      customer_id uuid not null references appbuilder.customers(id) on delete cascade,
      name text not null,
      api_key text not null unique,
      secret_hash text not null,
      is_platform_admin boolean not null default false,
      created_at timestamptz not null default now(),
      revoked_at timestamptz
    );
    create index api_clients_customer_idx on appbuilder.api_clients(customer_id);
    create table appbuilder.projects (
      id uuid primary key,
      customer_id uuid not null references appbuilder.customers(id) on delete cascade,
      name text not null,
      components jsonb not null default '[]',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index projects_customer_idx on appbuilder.projects(customer_id, id);
    create table appbuilder.applications (
      id uuid primary key,
      customer_id uuid not null references appbuilder.customers(id) on delete cascade,
      project_id uuid not null references appbuilder.projects(id) on delete cascade,
      name text,
      scode jsonb not null,
      server_version text not null,
      is_active boolean not null default false,
      last_published_at timestamptz,
      last_unpublished_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index applications_project_idx on appbuilder.applications(project_id, id);
    create index applications_customer_idx on appbuilder.applications(customer_id);
    create table appbuilder.application_versions (
      id uuid primary key,
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      server_version text not null,
      scode jsonb not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (application_id, server_version)
    );
    create table appbuilder.jobs (
      id uuid primary key,
      customer_id uuid not null references appbuilder.customers(id) on delete cascade,
      project_id uuid not null references appbuilder.projects(id) on delete cascade,
      application_id uuid references appbuilder.applications(id) on delete cascade,
      job_type text not null,
      status text not null,
      implementation_job_id text,
      metadata jsonb not null default '{}',
      error_message text,
      error_stack text,
      created_at timestamptz not null default now(),
      started_at timestamptz,
      completed_at timestamptz
    );
    create index jobs_application_idx on appbuilder.jobs(application_id, created_at);
`;
