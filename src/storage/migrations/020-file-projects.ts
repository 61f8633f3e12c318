import type { Kysely } from 'kysely';
import { runStatements } from './statements.ts';

/**
 * Stored files carry the project they belong to (null: a customer file of no project, kept by the
 * builder who stored it), so a builder limited to some projects reaches only their files. Existing
 * rows are filled from what is known: an attachment's file belongs to the attachment's project, a
 * generated application's upload (`apps/{applicationId}/…`) to the application's project.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, STATEMENTS);
}

const STATEMENTS = `
    alter table appbuilder.files add column project_id uuid;
    update appbuilder.files f set project_id = a.project_id
      from appbuilder.attachments a where a.file_id = f.id;
    update appbuilder.files f set project_id = app.project_id
      from appbuilder.app_files af join appbuilder.applications app on app.id = af.application_id
      where af.file_id = f.id and f.project_id is null;
    update appbuilder.files f set project_id = app.project_id
      from appbuilder.applications app
      where f.project_id is null and starts_with(f.path, 'apps/') and split_part(f.path, '/', 2) = app.id::text
        and app.customer_id = f.customer_id;
    create index files_customer_project on appbuilder.files (customer_id, project_id)
`;
