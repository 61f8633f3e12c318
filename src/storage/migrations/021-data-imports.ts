import type { Kysely } from 'kysely';
import { runStatements } from './statements.ts';

/**
 * Data imports: rows of a customer's documents (SQL `COPY`/`INSERT`, CSV, JSON) written into a
 * published version of an application by a `data_import` job (src/imports/). The row keeps what
 * was asked and, once the job has run, its report: per model the rows read, imported and
 * rejected, and the first rejected rows with their reasons.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, STATEMENTS);
}

const STATEMENTS = `
    create table appbuilder.data_imports (
      id uuid primary key,
      customer_id uuid not null references appbuilder.customers(id) on delete cascade,
      project_id uuid not null references appbuilder.projects(id) on delete cascade,
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      specification_id uuid,
      attachment_ids jsonb not null,
      server_version text,
      on_error text not null,
      status text not null,
      job_id uuid,
      models jsonb not null default '[]',
      errors jsonb not null default '[]',
      notes jsonb not null default '[]',
      error_message text,
      created_at timestamptz not null default now(),
      started_at timestamptz,
      completed_at timestamptz,
      created_by jsonb
    );
    create index data_imports_application_idx on appbuilder.data_imports (application_id, id)
`;
