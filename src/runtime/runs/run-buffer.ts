// Succeeded HTTP-trigger runs are observability records: they are written off the request path,
// at most 25 ms later, every run of that time in one insert. One buffer per database, shared by
// every RunStore of the process, so the runs API (services/runs.ts) flushes it before it reads
// and a run is listed as soon as its request has been answered. Event runs and failed runs are
// still written at once (an event run with its writes, so a delivery whose run cannot be stored
// is retried). Flushed when the service stops (runtime/index.ts).
import { sql } from 'kysely';
import type { Db, Executor } from '../../storage/db.ts';
import { PREPARED } from '../../storage/prepared.ts';
import type { Run } from './store.ts';
import { BatchWriter } from '../../storage/batch-writer.ts';

/** The process's buffer of runs for `db`: written at most 25 ms later, 200 to a statement. */
function newRunBuffer(db: Db): BatchWriter<Run> {
  return new BatchWriter<Run>({ flushAfterMs: 25, maxRows: 200, maxPending: 50_000, what: 'action runs', write: (batch) => insertRuns(db.kysely, batch) });
}

/** The columns of appbuilder.runs with their types, in the order of the JSON rows insertRuns sends. */
const RUN_COLUMNS = sql.raw(`id uuid, application_id uuid, server_version text, trigger_id text, action_id text, status text,
  input json, steps json, result json, response json, error json, started_at timestamptz, completed_at timestamptz, duration_ms double precision, created_by json`);

/**
 * Stores `runs` with ONE statement and ONE parameter (the rows as a JSON array), whatever their
 * number: the statement text never changes, so it runs prepared, and no per-value binding is built.
 */
export async function insertRuns(executor: Executor, runs: readonly Run[]): Promise<void> {
  const rows = runs.map((run) => ({
    id: run.id,
    application_id: run.applicationId,
    server_version: run.serverVersion,
    trigger_id: run.triggerId,
    action_id: run.actionId,
    status: run.status,
    input: run.input,
    steps: run.steps,
    result: run.result,
    response: run.response ?? null,
    error: run.error ?? null,
    started_at: run.startedAt,
    completed_at: run.completedAt,
    duration_ms: run.durationMs,
    created_by: run.createdBy ?? null,
  }));
  await sql`${sql.raw(PREPARED)}insert into appbuilder.runs
    (id, application_id, server_version, trigger_id, action_id, status, input, steps, result, response, error, started_at, completed_at, duration_ms, created_by)
    select * from json_to_recordset(cast(${JSON.stringify(rows)} as json)) as r(${RUN_COLUMNS})`.execute(executor);
}

const buffers = new WeakMap<Db, BatchWriter<Run>>();

export function runBuffer(db: Db): BatchWriter<Run> {
  let buffer = buffers.get(db);
  if (!buffer) buffers.set(db, (buffer = newRunBuffer(db)));
  return buffer;
}
