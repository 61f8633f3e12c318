import type { Kysely } from 'kysely';
import { runStatements } from './statements.ts';

/**
 * Writes made with management credentials on a generated application's own routes are audited
 * too: their rows name the application (null for the management API's own routes). No foreign
 * key: the record of a change outlives the application it changed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(
    db,
    `alter table appbuilder.audit_events add column application_id uuid;
     create index audit_events_application_idx on appbuilder.audit_events (customer_id, application_id, id desc) where application_id is not null`,
  );
}
