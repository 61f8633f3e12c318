// Succeeded HTTP-trigger runs are observability records: they are written off the request path,
// a few milliseconds later, many runs to one multi-row insert. One buffer per database, shared by
// every RunStore of the process, so the runs API (services/runs.ts) flushes it before it reads
// and a run is listed as soon as its request has been answered. Event runs and failed runs are
// still written at once (an event run with its writes, so a delivery whose run cannot be stored
// is retried). Flushed when the service stops (runtime/index.ts).
import { sql } from 'kysely';
import type { Db } from '../../storage/db.ts';
import { jsonb } from '../../storage/sql.ts';
import type { Run } from './store.ts';

const FLUSH_AFTER_MS = 5;
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
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.flush();
    }, delay);
    // The service flushes when it stops; a pending write alone does not keep the process alive.
    this.#timer.unref();
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0, MAX_ROWS);
      try {
        await insertRuns(this.db, batch);
      } catch (error) {
        this.#pending.unshift(...batch);
        console.error('Storing action runs failed; retrying.', error);
        this.#schedule(RETRY_AFTER_MS);
        return;
      }
    }
  }
}

async function insertRuns(db: Db, runs: Run[]): Promise<void> {
  const rows = runs.map(
    (run) => sql`(${run.id}, ${run.applicationId}, ${run.serverVersion}, ${run.triggerId}, ${run.actionId}, ${run.status},
      ${jsonb(run.input)}, ${jsonb(run.steps)}, ${jsonb(run.result)}, ${run.response ? jsonb(run.response) : null},
      ${run.error ? jsonb(run.error) : null}, ${run.startedAt}, ${run.completedAt}, ${run.durationMs})`,
  );
  await sql`insert into appbuilder.runs
    (id, application_id, server_version, trigger_id, action_id, status, input, steps, result, response, error, started_at, completed_at, duration_ms)
    values ${sql.join(rows)}`.execute(db.kysely);
}

const buffers = new WeakMap<Db, RunBuffer>();

export function runBuffer(db: Db): RunBuffer {
  let buffer = buffers.get(db);
  if (!buffer) buffers.set(db, (buffer = new RunBuffer(db)));
  return buffer;
}
