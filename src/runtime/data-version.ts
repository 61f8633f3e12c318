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
import { quoteIdent } from '../storage/sql.ts';
import { dollarQuoted, quoteLiteral } from '../compiler/schema/index.ts';

export const DATA_VERSION_TABLE = 'data_version';
const BUMP_FUNCTION = 'bump_data_version';
const ROW_TRIGGER = 'data_version_bump';
const TRUNCATE_TRIGGER = 'data_version_truncate';

/**
 * The statement creating the version row, the trigger function and the triggers on every table of
 * `schema` that lacks them, and setting a new version: one `do` block, run in the deployment's
 * batch and transaction (`schema-extras.ts`), which finds the tables in the catalog itself, so an
 * app of 500 tables costs no query of its own for its 1,000 triggers (issue 28). Idempotent.
 * Identifiers: ours through quoteIdent, the catalog's table names through `format('%I')`.
 */
export function dataVersionStatement(schema: string): string {
  const versionTable = `${quoteIdent(schema)}.${quoteIdent(DATA_VERSION_TABLE)}`;
  const bump = `${quoteIdent(schema)}.${quoteIdent(BUMP_FUNCTION)}`;
  const bumpBody = `begin
      update ${versionTable} set version = pg_current_xact_id()
        where version <> pg_current_xact_id();
      return null;
    end`;
  const setUp = [
    `create table if not exists ${versionTable} (one boolean primary key default true check (one), version xid8 not null)`,
    `insert into ${versionTable} (one, version) values (true, pg_current_xact_id()) on conflict (one) do update set version = excluded.version`,
    `create or replace function ${bump}() returns trigger language plpgsql as ${dollarQuoted(bumpBody, 'v')}`,
  ];
  const name = quoteLiteral(schema);
  const rowTrigger = `create constraint trigger ${quoteIdent(ROW_TRIGGER)} after insert or update or delete on %I.%I deferrable initially deferred for each row execute function ${bump}()`;
  const truncateTrigger = `create trigger ${quoteIdent(TRUNCATE_TRIGGER)} after truncate on %I.%I for each statement execute function ${bump}()`;
  const block = `declare t record;
begin
  -- An app without models has no schema yet.
  if not exists (select 1 from pg_namespace where nspname = ${name}) then return; end if;
  ${setUp.map((statement) => `execute ${quoteLiteral(statement)};`).join('\n  ')}
  for t in select c.relname as name,
      exists(select 1 from pg_trigger g where g.tgrelid = c.oid and g.tgname = ${quoteLiteral(ROW_TRIGGER)}) as has_row,
      exists(select 1 from pg_trigger g where g.tgrelid = c.oid and g.tgname = ${quoteLiteral(TRUNCATE_TRIGGER)}) as has_truncate
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${name} and c.relkind in ('r', 'p') and c.relname <> ${quoteLiteral(DATA_VERSION_TABLE)}
    order by c.relname
  loop
    if not t.has_row then execute format(${quoteLiteral(rowTrigger)}, ${name}, t.name); end if;
    if not t.has_truncate then execute format(${quoteLiteral(truncateTrigger)}, ${name}, t.name); end if;
  end loop;
end`;
  return `do ${dollarQuoted(block, 'dv')}`;
}
