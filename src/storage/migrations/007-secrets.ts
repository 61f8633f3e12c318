import type { Kysely } from 'kysely';
import { runStatements } from './statements.ts';

/**
 * Variables and secrets of applications and projects (DESIGN §11). Each owner has one data key,
 * wrapped by the master key (which never lives here); a secret's value is sealed under its
 * owner's data key with `{ownerId}:{name}:{version}` as additional data. `sealed_value` is the
 * only column that holds secret material, and only as ciphertext.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, STATEMENTS);
}

const STATEMENTS = `
    create table appbuilder.data_keys (
      owner_id uuid primary key,
      customer_id uuid not null references appbuilder.customers(id) on delete cascade,
      project_id uuid references appbuilder.projects(id) on delete cascade,
      application_id uuid references appbuilder.applications(id) on delete cascade,
      wrapped_key text not null,
      created_at timestamptz not null default now(),
      rotated_at timestamptz,
      check ((project_id is null) <> (application_id is null))
    );
    create table appbuilder.config_values (
      id uuid primary key,
      customer_id uuid not null references appbuilder.customers(id) on delete cascade,
      owner_id uuid not null,
      project_id uuid references appbuilder.projects(id) on delete cascade,
      application_id uuid references appbuilder.applications(id) on delete cascade,
      kind text not null check (kind in ('variable', 'secret')),
      name text not null check (name ~ '^[A-Z][A-Z0-9_]{0,63}$'),
      value text,
      sealed_value text,
      version integer not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      updated_by jsonb not null,
      check ((project_id is null) <> (application_id is null)),
      check (owner_id = coalesce(application_id, project_id)),
      check ((kind = 'variable') = (value is not null) and (kind = 'secret') = (sealed_value is not null)),
      unique (owner_id, name)
    );
    create index config_values_project_idx on appbuilder.config_values(project_id) where project_id is not null
`;
