import type { Kysely } from 'kysely';
import { runStatements } from './statements.ts';

/**
 * Figma imports and their generated code (DESIGN §14). The imported file is kept in the database,
 * gzipped (a Figma file of 25 MiB at most; its JSON compresses about tenfold), with the images its
 * fills use (bounded in count and size): the code-generation job then needs neither the Figma
 * token nor the network, and a project's deletion takes all of it (on delete cascade), as it does
 * the project's specifications. A finished job's zip is kept per job, and goes with its import.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, STATEMENTS);
}

const STATEMENTS = `
    create table appbuilder.figma_imports (
      id uuid primary key,
      customer_id uuid not null references appbuilder.customers(id) on delete cascade,
      project_id uuid not null references appbuilder.projects(id) on delete cascade,
      file_key text,
      attachment_id uuid,
      name text not null,
      version text,
      last_modified timestamptz,
      frames jsonb not null,
      document bytea not null,
      document_bytes bigint not null,
      created_at timestamptz not null default now(),
      created_by jsonb
    );
    create index figma_imports_project_idx on appbuilder.figma_imports (project_id, id);
    create table appbuilder.figma_import_images (
      import_id uuid not null references appbuilder.figma_imports(id) on delete cascade,
      image_ref text not null,
      content_type text not null,
      data bytea not null,
      primary key (import_id, image_ref)
    );
    create table appbuilder.figma_code_results (
      job_id uuid primary key,
      import_id uuid not null references appbuilder.figma_imports(id) on delete cascade,
      zip bytea not null,
      size_bytes bigint not null,
      sha256 text not null,
      file_count integer not null,
      created_at timestamptz not null default now()
    );
    create index figma_code_results_import_idx on appbuilder.figma_code_results (import_id)
`;
