import type { Kysely } from 'kysely';
import { runStatements } from './statements.ts';

/**
 * Customers' stored files (DESIGN §12). The bytes live with the storage driver under
 * `blob_key`; the row is written only after the bytes are in place, so a row always has
 * its bytes. A blob without a row (a crash between the two, a replaced or deleted file, a
 * deleted customer) is an orphan the sweeper removes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, STATEMENTS);
}

const STATEMENTS = `
    create table appbuilder.files (
      id uuid primary key,
      customer_id uuid not null references appbuilder.customers(id) on delete cascade,
      builder_id uuid,
      path text not null,
      size bigint not null,
      content_type text not null,
      sha256 text not null,
      blob_key text not null unique,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (customer_id, path)
    );
    create index files_customer_builder on appbuilder.files (customer_id, builder_id)
`;
