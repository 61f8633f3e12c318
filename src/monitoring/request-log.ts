// The request log's writer (DESIGN §19): a request adds its row to a buffer in memory and is
// answered; the buffer is written at most 50 ms later, every row of that time in ONE statement with
// ONE parameter (the rows as a JSON array), so the log costs the request path a push and no
// round trip. One writer per database, shared by the runtime (which adds rows) and the logs API
// (which flushes before it reads, so a row is listed as soon as its request has been answered).
// A row whose day has no partition yet makes the writer create it and write the batch again.
import { sql } from 'kysely';
import type { Db, Executor } from '../storage/db.ts';
import { PREPARED } from '../storage/prepared.ts';
import { BatchWriter } from '../storage/batch-writer.ts';
import { uuidv7 } from '../tools/ids.ts';
import { dayKey, ensureDayPartitions } from './partitions.ts';

/** One generated-app request: the route template, never the URL, its query string or a body. */
export interface RequestLogEntry {
  at: Date;
  applicationId: string;
  serverVersion: string;
  method: string;
  /** The app's route template (`/toDos/:id`), or `(unmatched)`. */
  route: string;
  status: number;
  durationMs: number;
  userId: string | null;
  /** Response bytes, when the length is known. */
  bytes: number | null;
  /** What failed, for errors: the problem type's last segment or the error's name. */
  errorType: string | null;
}

export class RequestLogWriter {
  /** Whether rows are written (APPBUILDER_REQUEST_LOG); the bench turns it off and on in one run. */
  enabled = true;
  readonly #rows: BatchWriter<RequestLogEntry>;
  readonly #partitions = new Set<string>();

  constructor(private readonly db: Db) {
    // Rows kept while the database refuses them: 50,000 at most.
    this.#rows = new BatchWriter({ flushAfterMs: 50, maxRows: 500, maxPending: 50_000, what: 'the request log', write: (batch) => this.#write(batch) });
  }

  /** Rows dropped because the database refused them for too long. */
  get dropped(): number {
    return this.#rows.dropped;
  }

  add(entry: RequestLogEntry): void {
    if (this.enabled) this.#rows.add(entry);
  }

  /** Writes every row added so far; resolves when they are stored (or, on a database error, kept for a retry). */
  flush(): Promise<void> {
    return this.#rows.flush();
  }

  async #write(batch: RequestLogEntry[]): Promise<void> {
    const missing = batch.filter((entry) => !this.#partitions.has(dayKey(entry.at))).map((entry) => entry.at);
    if (missing.length > 0) for (const key of await ensureDayPartitions(this.db.kysely, missing)) this.#partitions.add(key);
    try {
      await insertRequestLog(this.db.kysely, batch);
    } catch (error) {
      // A partition dropped by retention (or by another process) since we noted it: make it again, once.
      if ((error as { code?: string }).code !== '23514') throw error;
      this.#partitions.clear();
      for (const key of await ensureDayPartitions(this.db.kysely, batch.map((entry) => entry.at))) this.#partitions.add(key);
      await insertRequestLog(this.db.kysely, batch);
    }
  }

  /** Forget which partitions exist (after retention dropped some). */
  forgetPartitions(): void {
    this.#partitions.clear();
  }
}

const COLUMNS = sql.raw(`id uuid, at timestamptz, application_id uuid, server_version text, method text, route text,
  status smallint, duration_ms real, user_id text, bytes integer, error_type text`);

/** Stores `entries` with one statement and one parameter, whatever their number (the text never changes, so it runs prepared). */
export async function insertRequestLog(executor: Executor, entries: readonly RequestLogEntry[]): Promise<void> {
  const rows = entries.map((e) => ({
    id: uuidv7(e.at.getTime()),
    at: e.at.toISOString(),
    application_id: e.applicationId,
    server_version: e.serverVersion,
    method: e.method,
    route: e.route,
    status: e.status,
    duration_ms: e.durationMs,
    user_id: e.userId,
    bytes: e.bytes,
    error_type: e.errorType,
  }));
  await sql`${sql.raw(PREPARED)}insert into appbuilder.request_log
    (id, at, application_id, server_version, method, route, status, duration_ms, user_id, bytes, error_type)
    select * from json_to_recordset(cast(${JSON.stringify(rows)} as json)) as r(${COLUMNS})`.execute(executor);
}

const writers = new WeakMap<Db, RequestLogWriter>();

/** The writer of `db` (one per database handle in a process). */
export function requestLogWriter(db: Db): RequestLogWriter {
  let writer = writers.get(db);
  if (!writer) writers.set(db, (writer = new RequestLogWriter(db)));
  return writer;
}
