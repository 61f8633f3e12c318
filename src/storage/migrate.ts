import { sql, type Kysely } from 'kysely';
import { withoutStatementTimeout, type Db } from './db.ts';
import { MIGRATIONS, type Migration } from './migrations/index.ts';

// Any constant works; it only has to be the same in every process of one installation.
const MIGRATION_LOCK_KEY = 7_311_042;

/**
 * Brings schema `appbuilder` up to date. Runs in one transaction under an advisory
 * lock, so several processes starting together against PostgreSQL migrate once. The
 * statement timeout does not apply.
 */
export async function migrateControlPlane(db: Db, migrations: Migration[] = MIGRATIONS): Promise<number[]> {
  return db.kysely.transaction().execute(async (trx) => {
    const kysely = trx as unknown as Kysely<unknown>;
    // Waiting for another process's migration, or migrating a large table, may take a while.
    await withoutStatementTimeout(trx);
    await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`.execute(kysely);
    await sql`create schema if not exists appbuilder`.execute(kysely);
    await sql`
      create table if not exists appbuilder.schema_migrations (
        version integer primary key,
        name text not null,
        applied_at timestamptz not null default now()
      )`.execute(kysely);
    const applied = await sql<{ version: number }>`select version from appbuilder.schema_migrations`.execute(kysely);
    const done = new Set(applied.rows.map((row) => Number(row.version)));
    const ran: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await migration.up(kysely);
      await sql`insert into appbuilder.schema_migrations (version, name) values (${migration.version}, ${migration.name})`.execute(kysely);
      ran.push(migration.version);
    }
    return ran;
  });
}
