import { sql, type Kysely } from 'kysely';

/**
 * Realtime (DESIGN §17): every outbox row (`appbuilder.events`, written in the transaction of its
 * change) gets a number from one sequence, monotonic per application, and announces itself on
 * `appbuilder_realtime` (NOTIFY is sent at commit, never for a rolled-back transaction).
 *
 * Numbers are taken in insertion order, not commit order; a reader makes them final with the
 * transaction id each row takes first (src/realtime/feed.ts): once every transaction older than
 * the snapshot taken after reading the sequence has ended, no row numbered below it can still
 * appear. The trigger covers every path that writes the outbox (generated routes, relations,
 * actions, `event.emit`) without touching them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db);
}

const STATEMENTS = [
  `alter table appbuilder.events add column seq bigint`,
  `create sequence appbuilder.event_seq`,
  `create function appbuilder.number_event() returns trigger language plpgsql as $$
begin
  -- The transaction id first: a row's number is then taken after its transaction's id exists.
  perform pg_current_xact_id();
  new.seq := nextval('appbuilder.event_seq');
  perform pg_notify('appbuilder_realtime', new.application_id::text);
  return new;
end
$$`,
  `create trigger events_number before insert on appbuilder.events for each row execute function appbuilder.number_event()`,
  `create index events_realtime_idx on appbuilder.events(application_id, seq) where seq is not null`,
  `create index events_seq_idx on appbuilder.events(seq) where seq is not null`,
];
