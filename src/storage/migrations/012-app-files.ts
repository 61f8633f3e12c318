import type { Kysely } from 'kysely';
import { runStatements } from './statements.ts';

/**
 * Files uploaded to generated applications (DESIGN §6, "Files"). The bytes and their row are a
 * customer's stored file (`appbuilder.files`, §12, at `apps/{applicationId}/{key}`); this row
 * ties the key a record holds to that file and to the end user who uploaded it (null: an
 * administrator). It is written in the transaction that commits the file row, and goes with
 * the file (or the application).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, STATEMENTS);
}

const STATEMENTS = `
    create table appbuilder.app_files (
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      key text not null,
      file_id uuid not null references appbuilder.files(id) on delete cascade,
      uploaded_by uuid,
      created_at timestamptz not null default now(),
      primary key (application_id, key)
    );
    create index app_files_file on appbuilder.app_files (file_id)
`;
