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
import { outsideRequests } from '../../storage/request-scope.ts';

const FLUSH_AFTER_MS = 25;
const RETRY_AFTER_MS = 1_000;
const MAX_ROWS = 200;

class RunBuffer {
  #pending: Run[] = [];
  #timer: NodeJS.Timeout | null = null;
  #chain: Promise<void> = Promise.resolve();

  constructor(private readonly db: Db) {}

  add(run: Run): void {
    this.#pending.push(run);
    this.#schedule(FLUSH_AFTER_MS);
  }

  /** Writes every run added so far; resolves when they are stored (or, on a database error, re-queued). */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    this.#chain = this.#chain.then(() => this.#drain());
    return this.#chain;
  }

  #schedule(delay: number): void {
    if (this.#timer) return;
    // Outside the request that added the run: its client leaving must not refuse the write.
    this.#timer = outsideRequests(() =>
      setTimeout(() => {
        this.#timer = null;
        void this.flush();
      }, delay),
    );
    // The service flushes when it stops; a pending write alone does not keep the process alive.
    this.#timer.unref();
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0, MAX_ROWS);
      try {
        await insertRuns(this.db.kysely, batch);
      } catch (error) {
        this.#pending.unshift(...batch);
        console.error('Storing action runs failed; retrying.', error);
        this.#schedule(RETRY_AFTER_MS);
        return;
      }
    }
  }
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

const buffers = new WeakMap<Db, RunBuffer>();

export function runBuffer(db: Db): RunBuffer {
  let buffer = buffers.get(db);
  if (!buffer) buffers.set(db, (buffer = new RunBuffer(db)));
  return buffer;
}
