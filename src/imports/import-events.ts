/**
 * The outbox events of an import (DESIGN §21 "Batch and bulk writes feed realtime and event
 * triggers as single writes do"): one `{Model}.created` per record written, recorded in the
 * import's transaction (so a refused or rolled-back import announces nothing) by ONE statement per
 * batch that reads the batch's rows back as plain records (runtime/writes/plain-record.ts, what a
 * single create records). Delivery (realtime, event triggers) happens after the commit.
 */
import { sql } from 'kysely';
import type { Executor } from '../storage/db.ts';
import { ident } from '../storage/sql.ts';
import type { CompiledApp, CompiledModel } from '../runtime/compiled-app.ts';
import { plainJson } from '../runtime/writes/plain-record.ts';

/** Records `{Model}.created` for the records `ids` (event `eventIds[i]` for `ids[i]`), in their order. */
export async function recordCreated(executor: Executor, app: CompiledApp, model: CompiledModel, ids: string[], eventIds: string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`insert into appbuilder.events (id, application_id, name, payload, previous)
    select r.e, ${app.applicationId}, ${`${model.name}.created`}, (${plainJson(app, model)})::jsonb, null
    from unnest(cast(${ids} as uuid[]), cast(${eventIds} as uuid[])) with ordinality as r(id, e, n)
    join ${ident(app.schema, model.table)} t on t.id = r.id
    order by r.n`.execute(executor);
}

/**
 * Reads the records of `refs` again into their events (a reference set at the end of the import,
 * to a row written after its own): the event carries the record as committed.
 */
export async function refreshCreated(executor: Executor, app: CompiledApp, model: CompiledModel, refs: Array<{ id: string; event: string }>): Promise<void> {
  if (refs.length === 0) return;
  await sql`update appbuilder.events e set payload = (${plainJson(app, model)})::jsonb
    from unnest(cast(${refs.map((r) => r.id)} as uuid[]), cast(${refs.map((r) => r.event)} as uuid[])) as r(id, e)
    join ${ident(app.schema, model.table)} t on t.id = r.id
    where e.id = r.e`.execute(executor);
}
