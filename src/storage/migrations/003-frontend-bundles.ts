import type { Kysely } from 'kysely';
import { runStatements } from './statements.ts';

/**
 * Built frontend bundles, one per (application, serverVersion): the zip is kept in
 * chunks so it is written and served a chunk at a time, never whole in memory.
 * The `frontend_bundles` row is written last, in the same transaction as the
 * chunks: it exists only when the bundle is complete.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, STATEMENTS);
}

const STATEMENTS = `
    create table appbuilder.frontend_bundle_chunks (
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      server_version text not null,
      seq integer not null,
      data bytea not null,
      primary key (application_id, server_version, seq)
    );
    create table appbuilder.frontend_bundles (
      application_id uuid not null references appbuilder.applications(id) on delete cascade,
      server_version text not null,
      job_id uuid,
      size_bytes integer not null,
      sha256 text not null,
      chunk_count integer not null,
      file_count integer not null,
      created_at timestamptz not null default now(),
      primary key (application_id, server_version)
    );
`;
