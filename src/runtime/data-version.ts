// The data version of an application's schema: one row that changes whenever any of the app's
// tables changes, so a process may keep exact list totals until then (data/count-cache.ts).
//
// How it stays right across transactions and processes:
// - Every table of the schema has a deferred constraint trigger on insert, update and delete and a
//   statement trigger on truncate. At commit time (deferred) it sets `version` to the committing
//   transaction's own id (`pg_current_xact_id()`, 64-bit, never reused), once per transaction. The
//   change commits with the data or not at all, whichever process or SQL client wrote.
// - A reader takes the version and the count in ONE statement, so both come from one snapshot: a
//   total cached with version v is the count of every snapshot that still shows v. Any later
//   committed write shows another value (its own transaction id), so equality means "unchanged".
// - Deferred to commit, the row lock on `version` is the last one a writer takes and is held only
//   while committing: writers of one app neither wait for each other's whole transaction nor
//   deadlock on it. The price is one queued trigger event per written row (fine for API writes;
//   a bulk update of millions of rows queues millions of events).
// - Reads inside a transaction do not use the cache; a statement that sees uncommitted changes of
//   its own transaction anyway (a connection in a transaction begun by hand) neither uses nor
//   stores a cached total: the reader checks `pg_current_xact_id_if_assigned() is null`.
// - Every deployment sets a new version too, so DDL (a type conversion) also invalidates.
import { sql } from 'kysely';
import type { Executor } from '../storage/db.ts';
import { ident, quoteIdent } from '../storage/sql.ts';
import { runStatementBatch } from '../compiler/schema/index.ts';

export const DATA_VERSION_TABLE = 'data_version';
const BUMP_FUNCTION = 'bump_data_version';
const ROW_TRIGGER = 'data_version_bump';
const TRUNCATE_TRIGGER = 'data_version_truncate';

/**
 * Creates the version row, the trigger function and the triggers on every table of `schema` that
 * lacks them, and sets a new version. Idempotent; runs inside the deployment's transaction.
 */
export async function ensureDataVersion(executor: Executor, schema: string): Promise<void> {
  const exists = await sql<{ ok: boolean }>`select exists(select 1 from pg_namespace where nspname = ${schema}) as ok`.execute(executor);
  if (exists.rows[0]?.ok !== true) return; // an app without models has no schema yet
  const versionTable = ident(schema, DATA_VERSION_TABLE);
  await sql`create table if not exists ${versionTable} (
    one boolean primary key default true check (one),
    version xid8 not null
  )`.execute(executor);
  await sql`insert into ${versionTable} (one, version) values (true, pg_current_xact_id())
    on conflict (one) do update set version = excluded.version`.execute(executor);
  // The body is a literal: identifiers are quoted by quoteIdent, the schema name is `app_<hex>`.
  const body = `begin
      update ${quoteIdent(schema)}.${quoteIdent(DATA_VERSION_TABLE)} set version = pg_current_xact_id()
        where version <> pg_current_xact_id();
      return null;
    end`;
  await sql`create or replace function ${ident(schema, BUMP_FUNCTION)}() returns trigger language plpgsql as ${sql.raw(dollarQuoted(body))}`.execute(
    executor,
  );
  const tables = await sql<{ name: string; has_row: boolean; has_truncate: boolean }>`
    select c.relname as name,
      exists(select 1 from pg_trigger g where g.tgrelid = c.oid and g.tgname = ${ROW_TRIGGER}) as has_row,
      exists(select 1 from pg_trigger g where g.tgrelid = c.oid and g.tgname = ${TRUNCATE_TRIGGER}) as has_truncate
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and c.relkind in ('r', 'p') and c.relname <> ${DATA_VERSION_TABLE}
    order by c.relname`.execute(executor);
  // Identifiers through quoteIdent; run as one batch: an app of 500 tables needs 1,000 triggers,
  // and one query each was a large share of its deployment (issue 28).
  const bump = `${quoteIdent(schema)}.${quoteIdent(BUMP_FUNCTION)}`;
  const statements: string[] = [];
  for (const table of tables.rows) {
    const target = `${quoteIdent(schema)}.${quoteIdent(table.name)}`;
    if (!table.has_row) {
      statements.push(
        `create constraint trigger ${quoteIdent(ROW_TRIGGER)} after insert or update or delete on ${target} deferrable initially deferred for each row execute function ${bump}()`,
      );
    }
    if (!table.has_truncate) {
      statements.push(`create trigger ${quoteIdent(TRUNCATE_TRIGGER)} after truncate on ${target} for each statement execute function ${bump}()`);
    }
  }
  await runStatementBatch(executor, statements);
}

function dollarQuoted(body: string): string {
  let tag = '$v$';
  while (body.includes(tag)) tag = `$v${tag.length}$`;
  return `${tag}${body}${tag}`;
}
