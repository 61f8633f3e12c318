import { sql, type Kysely } from 'kysely';
import { toStoredForm, type Manifest } from '../../definition/versioning/stored-form.ts';
import { runStatements } from './statements.ts';

/**
 * Versions stored by difference (issue 28, `definition/versioning/stored-form.ts`): a version row
 * keeps a manifest, and the models, actions, triggers, ... it names are blobs shared by the
 * application's versions. The rows move to `application_version_rows`; `application_versions`
 * stays as a view whose `scode` is rebuilt in SQL (`version_scode`), so every reader of a
 * version's definition keeps reading the same column. Existing rows are converted here, in the
 * migration's transaction, and checked: nothing is lost.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, BEFORE);
  await convertRows(db);
  await runStatements(db, AFTER);
}

const BEFORE = `
    create table appbuilder.version_blobs (
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      hash text not null,
      body jsonb not null,
      primary key (application_id, hash)
    );
    alter table appbuilder.application_versions rename to application_version_rows;
    alter table appbuilder.application_version_rows add column manifest jsonb;
    create function appbuilder.version_scode(app uuid, manifest jsonb) returns jsonb
    language sql stable as $fn$
      select coalesce(jsonb_object_agg(m.key, case
        when jsonb_typeof(m.value) = 'object' and m.value ? '$blob' then
          (select b.body from appbuilder.version_blobs b where b.application_id = app and b.hash = m.value->>'$blob')
        when jsonb_typeof(m.value) = 'object' and m.value ? '$chunks' then
          (select coalesce(jsonb_agg(e.body order by c.ord, x.ord), '[]'::jsonb)
             from jsonb_array_elements_text(m.value->'$chunks') with ordinality as c(hash, ord)
             join appbuilder.version_blobs cb on cb.application_id = app and cb.hash = c.hash
             cross join jsonb_array_elements_text(cb.body) with ordinality as x(hash, ord)
             join appbuilder.version_blobs e on e.application_id = app and e.hash = x.hash)
        else m.value end), '{}'::jsonb)
      from jsonb_each(manifest) as m
    $fn$
`;

// The view keeps the columns the table had; `scode` is rebuilt from the manifest by
// `version_scode`: each `$chunks` member is the elements of its chunks in order, each `$blob` its body.
const AFTER = `
    alter table appbuilder.application_version_rows drop column scode;
    alter table appbuilder.application_version_rows alter column manifest set not null;
    create view appbuilder.application_versions as
      select id, application_id, server_version, appbuilder.version_scode(application_id, manifest) as scode,
             created_at, updated_at, created_by, manifest
        from appbuilder.application_version_rows
`;

const BATCH = 50;

async function convertRows(db: Kysely<unknown>): Promise<void> {
  for (let after = '00000000-0000-0000-0000-000000000000'; ; ) {
    const rows = await sql<{ id: string; application_id: string; scode: Record<string, unknown> }>`
      select id, application_id, scode from appbuilder.application_version_rows
       where id > ${after}::uuid order by id limit ${BATCH}`.execute(db);
    if (rows.rows.length === 0) return;
    for (const row of rows.rows) {
      const { manifest, blobs } = toStoredForm(row.scode);
      for (const blob of blobs) {
        await sql`insert into appbuilder.version_blobs (application_id, hash, body)
                  values (${row.application_id}, ${blob.hash}, cast(${JSON.stringify(blob.body)} as jsonb))
                  on conflict do nothing`.execute(db);
      }
      await sql`update appbuilder.application_version_rows set manifest = cast(${JSON.stringify(manifest)} as jsonb) where id = ${row.id}`.execute(db);
      await checkRebuilt(db, row.id, row.application_id, manifest);
    }
    after = rows.rows[rows.rows.length - 1].id;
  }
}

/** The SQL rebuild must give back the stored definition; otherwise the migration fails and changes nothing. */
async function checkRebuilt(db: Kysely<unknown>, id: string, applicationId: string, manifest: Manifest): Promise<void> {
  const same = await sql<{ same: boolean }>`
    select appbuilder.version_scode(${applicationId}::uuid, cast(${JSON.stringify(manifest)} as jsonb)) = scode as same
      from appbuilder.application_version_rows where id = ${id}`.execute(db);
  if (!same.rows[0]?.same) throw new Error(`Version ${id} does not rebuild to its stored definition`);
}
