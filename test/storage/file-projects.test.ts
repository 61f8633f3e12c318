// Migration 020: stored files carry their project. Rows written before it are filled from what is
// known: an attachment's file gets the attachment's project, a generated application's upload
// (`apps/{applicationId}/…`, with or without its app_files row) the application's project; a
// customer's other files stay without one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { migrateControlPlane } from '../../src/storage/migrate.ts';
import { MIGRATIONS } from '../../src/storage/migrations/index.ts';
import { availableDrivers, createTestDatabase, type TestDatabase } from '../support/databases.ts';

const id = (n: number) => `0190a1b2-c3d4-7e5f-8a9b-${String(n).padStart(12, '0')}`;

describe.each(await availableDrivers())('migration 020: file projects (%s)', (driver) => {
  let database: TestDatabase;
  const [customer, p1, p2, app] = [id(1), id(2), id(3), id(4)];
  const files = { attachment: id(10), upload: id(11), orphanUpload: id(12), plain: id(13) };

  beforeAll(async () => {
    database = await createTestDatabase(driver);
    await migrateControlPlane(database.db, MIGRATIONS.filter((m) => m.version < 20));
    const db = database.db.kysely as unknown as Kysely<unknown>;
    await sql`insert into appbuilder.customers (id, name) values (${customer}, 'C')`.execute(db);
    for (const project of [p1, p2]) await sql`insert into appbuilder.projects (id, customer_id, name) values (${project}, ${customer}, 'P')`.execute(db);
    await sql`insert into appbuilder.applications (id, customer_id, project_id, manifest, server_version)
              values (${app}, ${customer}, ${p2}, cast('{}' as jsonb), '1.0.0')`.execute(db);
    const paths: Record<keyof typeof files, string> = {
      attachment: `attachments/${p1}/${id(20)}`,
      upload: `apps/${app}/${id(21)}-photo.png`,
      orphanUpload: `apps/${app}/${id(22)}`,
      plain: 'reports/q1.txt',
    };
    for (const [name, fileId] of Object.entries(files) as Array<[keyof typeof files, string]>) {
      await sql`insert into appbuilder.files (id, customer_id, path, size, content_type, sha256, blob_key)
                values (${fileId}, ${customer}, ${paths[name]}, 1, 'text/plain', 'x', ${`blob-${name}`})`.execute(db);
    }
    await sql`insert into appbuilder.attachments (id, customer_id, project_id, file_id, name, content_type, size, sha256, kind)
              values (${id(20)}, ${customer}, ${p1}, ${files.attachment}, 'a.txt', 'text/plain', 1, 'x', 'text')`.execute(db);
    await sql`insert into appbuilder.app_files (application_id, key, file_id) values (${app}, ${`${id(21)}-photo.png`}, ${files.upload})`.execute(db);
    await migrateControlPlane(database.db);
  }, 120_000);
  afterAll(() => database?.drop());

  it("fills each file's project from its attachment or its application", async () => {
    const rows = await sql<{ id: string; project_id: string | null }>`select id, project_id from appbuilder.files`.execute(database.db.kysely);
    const byId = Object.fromEntries(rows.rows.map((row) => [row.id, row.project_id]));
    expect(byId).toEqual({ [files.attachment]: p1, [files.upload]: p2, [files.orphanUpload]: p2, [files.plain]: null });
  });
});
