// The request log's writer (DESIGN §19): a request adds its row to a buffer in memory and is
// answered; the buffer is written at most FLUSH_AFTER_MS later, every row of that time in ONE
// statement (one array per column, unnested), so the log costs the request path a push and no
// round trip. One writer per database, shared by the runtime (which adds rows) and the logs API
// (which flushes before it reads, so a row is listed as soon as its request has been answered).
// A row whose day has no partition yet makes the writer create it and write the batch again.
//
// What the log costs is set by the batch size (bench/runtime/request-log.ts, issue 26): measured
// on PostgreSQL 15 here (2 loaded cores), a statement of 10 rows cost the database 45-60 µs and
// this process 25-50 µs per row, one of 250 rows 7-14 µs and 8-12 µs (a statement, a commit and
// its WAL flush are paid per batch). From 250 rows on, unnested arrays cost the database about half
// of what the one JSON parameter they replaced did.
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

/** How long a row waits in memory at most: long enough for large batches under load (see the top), short enough to read as live. */
export const FLUSH_AFTER_MS = 250;

export class RequestLogWriter {
  /** Whether rows are written (APPBUILDER_REQUEST_LOG); the bench turns it off and on in one run. */
  enabled = true;
  readonly #rows: BatchWriter<RequestLogEntry>;
  readonly #partitions = new Set<string>();
  /** Statements written and the rows they stored (the batch size sets the log's cost; bench:runtime prints it). */
  readonly written = { statements: 0, rows: 0 };

  constructor(private readonly db: Db) {
    // Rows kept while the database refuses them: 50,000 at most.
    this.#rows = new BatchWriter({ flushAfterMs: FLUSH_AFTER_MS, maxRows: 2_000, maxPending: 50_000, what: 'the request log', write: (batch) => this.#write(batch) });
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
    this.written.statements++;
    this.written.rows += batch.length;
  }

  /** Forget which partitions exist (after retention dropped some). */
  forgetPartitions(): void {
    this.#partitions.clear();
  }
}

/** Stores `entries` with one statement, an array per column, whatever their number (the text never changes, so it runs prepared). */
export async function insertRequestLog(executor: Executor, entries: readonly RequestLogEntry[]): Promise<void> {
  const n = entries.length;
  const ids = new Array<string>(n);
  const at = new Array<string>(n);
  const applications = new Array<string>(n);
  const versions = new Array<string>(n);
  const methods = new Array<string>(n);
  const routes = new Array<string>(n);
  const statuses = new Array<number>(n);
  const durations = new Array<number>(n);
  const users = new Array<string | null>(n);
  const bytes = new Array<number | null>(n);
  const errors = new Array<string | null>(n);
  for (let i = 0; i < n; i++) {
    const e = entries[i];
    const ms = e.at.getTime();
    ids[i] = uuidv7(ms);
    at[i] = e.at.toISOString();
    applications[i] = e.applicationId;
    versions[i] = e.serverVersion;
    methods[i] = e.method;
    routes[i] = e.route;
    statuses[i] = e.status;
    durations[i] = e.durationMs;
    users[i] = e.userId;
    bytes[i] = e.bytes;
    errors[i] = e.errorType;
  }
  await sql`${sql.raw(PREPARED)}insert into appbuilder.request_log
    (id, at, application_id, server_version, method, route, status, duration_ms, user_id, bytes, error_type)
    select * from unnest(cast(${ids} as uuid[]), cast(${at} as timestamptz[]), cast(${applications} as uuid[]), cast(${versions} as text[]),
      cast(${methods} as text[]), cast(${routes} as text[]), cast(${statuses} as smallint[]), cast(${durations} as real[]),
      cast(${users} as text[]), cast(${bytes} as integer[]), cast(${errors} as text[]))`.execute(executor);
}

const writers = new WeakMap<Db, RequestLogWriter>();

/** The writer of `db` (one per database handle in a process). */
export function requestLogWriter(db: Db): RequestLogWriter {
  let writer = writers.get(db);
  if (!writer) writers.set(db, (writer = new RequestLogWriter(db)));
  return writer;
}
