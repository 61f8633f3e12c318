import type { Kysely } from 'kysely';
import { runStatements } from './statements.ts';

/**
 * Backups of one application (src/backups/): the archive's bytes live with the storage driver
 * (`blob_key`, kept from the orphan sweeper by this row); the row keeps the job's outcome, the
 * archive's size and SHA-256, whether a restore drill verified it, and its manifest.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, STATEMENTS);
}

const STATEMENTS = `
    create table appbuilder.backups (
      id uuid primary key,
      customer_id uuid not null references appbuilder.customers(id) on delete cascade,
      project_id uuid not null references appbuilder.projects(id) on delete cascade,
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      status text not null,
      job_id uuid,
      blob_key text,
      bytes bigint,
      sha256 text,
      verified boolean not null default false,
      manifest jsonb,
      error_message text,
      created_at timestamptz not null default now(),
      completed_at timestamptz,
      created_by jsonb
    );
    create index backups_application_idx on appbuilder.backups (application_id, created_at);
    create index backups_blob_idx on appbuilder.backups (blob_key)
`;
