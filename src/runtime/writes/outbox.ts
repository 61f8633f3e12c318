import type { Executor } from '../../storage/db.ts';
import { sql } from 'kysely';
import { uuidv7 } from '../../tools/ids.ts';
import type { CompiledApp } from '../compiled-app.ts';
import type { PlainRecord } from './plain-record.ts';

/**
 * Records a data-change event in the outbox, in the same transaction as the change:
 * it exists exactly when the change committed. Delivery happens after commit.
 */
export async function recordEvent(
  executor: Executor,
  app: CompiledApp,
  name: string,
  payload: PlainRecord | Record<string, unknown>,
  previous?: PlainRecord,
): Promise<void> {
  await sql`insert into appbuilder.events (id, application_id, name, payload, previous)
    values (${uuidv7()}, ${app.applicationId}, ${name}, cast(${JSON.stringify(payload)} as jsonb),
            cast(${previous ? JSON.stringify(previous) : null} as jsonb))`.execute(executor);
}
