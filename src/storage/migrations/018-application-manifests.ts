import { sql, type Kysely } from 'kysely';
import { toStoredForm } from '../../definition/versioning/stored-form.ts';
import { runStatements } from './statements.ts';

/**
 * An application row keeps the manifest of its current definition instead of the whole
 * definition (issue 28: an edit costs what it changes). The models, actions, ... it names are the
 * blobs its versions share (migration 017), so an edit writes the blobs it changed, a manifest and
 * a small row: rewriting a 2 MB `jsonb` value (decompressed, rebuilt, compressed again) cost
 * more than the rest of a one-field edit of a 1,000-model application. The service reads the
 * current definition back through `services/applications/version-store.ts` and keeps it in a
 * bounded per-process cache checked against the row (`definition-cache.ts`).
 *
 * Existing rows are converted in the migration's transaction and checked (the SQL rebuild,
 * `version_scode`, gives back the stored definition); nothing is lost.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, 'alter table appbuilder.applications add column manifest jsonb');
  await convertRows(db);
  await runStatements(
    db,
    `alter table appbuilder.applications drop column scode;
     alter table appbuilder.applications alter column manifest set not null`,
  );
}

const BATCH = 20;
const BLOBS_PER_INSERT = 200;

async function convertRows(db: Kysely<unknown>): Promise<void> {
  for (let after = '00000000-0000-0000-0000-000000000000'; ; ) {
    const rows = await sql<{ id: string; scode: Record<string, unknown> }>`
      select id, scode from appbuilder.applications where id > ${after}::uuid order by id limit ${BATCH}`.execute(db);
    if (rows.rows.length === 0) return;
    for (const row of rows.rows) {
      const { manifest, blobs } = toStoredForm(row.scode);
      for (let i = 0; i < blobs.length; i += BLOBS_PER_INSERT) {
        const values = blobs
          .slice(i, i + BLOBS_PER_INSERT)
          .map((blob) => sql`(${row.id}::uuid, ${blob.hash}, cast(${blob.json ?? JSON.stringify(blob.body)} as jsonb))`);
        await sql`insert into appbuilder.version_blobs (application_id, hash, body) values ${sql.join(values)} on conflict do nothing`.execute(db);
      }
      const manifestJson = JSON.stringify(manifest);
      const same = await sql<{ same: boolean }>`
        update appbuilder.applications set manifest = cast(${manifestJson} as jsonb) where id = ${row.id}
        returning appbuilder.version_scode(id, cast(${manifestJson} as jsonb)) = scode as same`.execute(db);
      if (!same.rows[0]?.same) throw new Error(`Application ${row.id} does not rebuild to its stored definition`);
    }
    after = rows.rows[rows.rows.length - 1].id;
  }
}
