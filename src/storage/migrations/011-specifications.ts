import type { Kysely } from 'kysely';
import { runStatements } from './statements.ts';

/**
 * Attachments and specifications (DESIGN §13). An attachment's bytes are a customer file
 * (`appbuilder.files`, §12), so the storage layer holds them; deleting that file row removes the
 * attachment with it. A project's deletion removes its attachments (their file rows are deleted
 * by `dropProjectAttachments` in the same transaction) and its specifications.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, STATEMENTS);
}

const STATEMENTS = `
    create table appbuilder.attachments (
      id uuid primary key,
      customer_id uuid not null references appbuilder.customers(id) on delete cascade,
      project_id uuid not null references appbuilder.projects(id) on delete cascade,
      file_id uuid not null references appbuilder.files(id) on delete cascade,
      name text not null,
      content_type text not null,
      size bigint not null,
      sha256 text not null,
      kind text not null,
      created_at timestamptz not null default now(),
      created_by jsonb
    );
    create index attachments_project_idx on appbuilder.attachments (project_id, id);
    create index attachments_file_idx on appbuilder.attachments (file_id);
    create table appbuilder.specifications (
      id uuid primary key,
      customer_id uuid not null references appbuilder.customers(id) on delete cascade,
      project_id uuid not null references appbuilder.projects(id) on delete cascade,
      name text not null,
      attachment_ids jsonb not null,
      instructions text,
      status text not null,
      job_id uuid,
      error_message text,
      content jsonb,
      provenance jsonb not null default '{}',
      warnings jsonb not null default '[]',
      summary jsonb,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create index specifications_project_idx on appbuilder.specifications (project_id, id);
    create index jobs_project_idx on appbuilder.jobs (project_id, id)
`;
