import type { Kysely } from 'kysely';
import { runStatements } from './statements.ts';

/**
 * Builders, their tokens and the audit trail (DESIGN §10), and who created each version,
 * job and run (`created_by`, the actor object; null for rows written before this migration
 * or by no management caller, e.g. a run an end user started).
 * Builder tokens are stored only as SHA-256 hashes: the token is 32 random bytes, so a
 * plain hash cannot be searched, and one indexed lookup per request makes a revocation
 * effective on the next request in every process.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, STATEMENTS);
}

const STATEMENTS = `
    create table appbuilder.builders (
      id uuid primary key,
      customer_id uuid not null references appbuilder.customers(id) on delete cascade,
      name text not null,
      email text not null,
      role text not null check (role in ('viewer', 'editor', 'admin', 'owner')),
      project_ids jsonb,
      is_active boolean not null default true,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      last_active_at timestamptz
    );
    create unique index builders_customer_email_idx on appbuilder.builders (customer_id, lower(email));
    create table appbuilder.builder_tokens (
      id uuid primary key,
      builder_id uuid not null references appbuilder.builders(id) on delete cascade,
      name text not null,
      token_hash text not null unique,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      last_used_at timestamptz,
      revoked_at timestamptz
    );
    create index builder_tokens_builder_idx on appbuilder.builder_tokens (builder_id, id);
    create table appbuilder.audit_events (
      id uuid primary key,
      customer_id uuid not null references appbuilder.customers(id) on delete cascade,
      at timestamptz not null default now(),
      actor_type text not null check (actor_type in ('apiClient', 'builder')),
      actor_id uuid not null,
      operation_id text,
      method text not null,
      path text not null,
      status integer not null,
      request_id text not null
    );
    create index audit_events_customer_idx on appbuilder.audit_events (customer_id, id desc);
    create index audit_events_actor_idx on appbuilder.audit_events (customer_id, actor_id, id desc);
    alter table appbuilder.application_versions add column created_by jsonb;
    alter table appbuilder.jobs add column created_by jsonb;
    alter table appbuilder.runs add column created_by jsonb
`;
