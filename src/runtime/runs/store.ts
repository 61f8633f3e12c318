// Stored action runs (appbuilder.runs): written once when a run ends, listed per application.
import { sql } from 'kysely';
import type { Db, Executor } from '../../storage/db.ts';
import { toIso } from '../../storage/sql.ts';
import type { JsonValue } from '../../expressions/index.ts';
import type { HttpResponse, RunError, StepRecord } from '../actions/types.ts';
import { insertRuns, runBuffer } from './run-buffer.ts';
import { storedRun } from './stored-run.ts';
import type { Actor } from '../../access/roles.ts';

export type RunStatus = 'succeeded' | 'failed';

/** What started a run and what it was given (request headers that carry credentials left out). */
export interface RunInputRecord {
  initialState: Record<string, unknown>;
  request?: Record<string, unknown>;
  event?: Record<string, unknown>;
  /** The end user's id, or null. */
  authId: string | null;
  caller: 'anonymous' | 'user' | 'admin' | 'system';
}

/** One run as the management API shows it. */
export interface Run {
  id: string;
  applicationId: string;
  serverVersion: string;
  triggerId: string | null;
  actionId: string;
  status: RunStatus;
  input: RunInputRecord;
  steps: StepRecord[];
  result: JsonValue;
  response?: HttpResponse;
  error?: RunError;
  startedAt: string;
  completedAt: string;
  durationMs: number;
  /** The management caller who started it (a test run); null for runs of the app's own traffic, events and schedules. */
  createdBy?: Actor | null;
}

export interface RunFilter {
  triggerId?: string;
  actionId?: string;
  status?: RunStatus;
  limit: number;
  offset: number;
}

interface RunRow {
  id: string;
  application_id: string;
  server_version: string;
  trigger_id: string | null;
  action_id: string;
  status: RunStatus;
  input: unknown;
  steps: unknown;
  result: unknown;
  response: unknown;
  error: unknown;
  started_at: Date | string;
  completed_at: Date | string;
  duration_ms: number | string;
  created_by?: unknown;
}

/** Both drivers hand jsonb back parsed (a JSON string result stays a string). */
const parsed = <T>(value: unknown): T => value as T;

function toRun(row: RunRow): Run {
  const response = parsed<HttpResponse | null>(row.response);
  const error = parsed<RunError | null>(row.error);
  return {
    id: row.id,
    applicationId: row.application_id,
    serverVersion: row.server_version,
    triggerId: row.trigger_id,
    actionId: row.action_id,
    status: row.status,
    input: parsed<RunInputRecord>(row.input),
    steps: parsed<StepRecord[]>(row.steps),
    result: parsed<JsonValue>(row.result) ?? null,
    ...(response ? { response } : {}),
    ...(error ? { error } : {}),
    startedAt: toIso(row.started_at)!,
    completedAt: toIso(row.completed_at)!,
    durationMs: Number(row.duration_ms),
    createdBy: parsed<Actor | null>(row.created_by) ?? null,
  };
}

export class RunStore {
  constructor(private readonly db: Db) {}

  /** Every run is stored as stored-run.ts keeps it (values cut to ~1 KB, secrets redacted). */
  async insert(run: Run, executor: Executor = this.db.kysely): Promise<void> {
    await insertRuns(executor, [storedRun(run)]);
  }

  /** Stores the run a few milliseconds later, with others (run-buffer.ts); reads below see it. */
  add(run: Run): void {
    runBuffer(this.db).add(storedRun(run));
  }

  /** Writes the runs added and not yet stored. */
  flush(): Promise<void> {
    return runBuffer(this.db).flush();
  }

  /** Newest first. */
  async list(applicationId: string, filter: RunFilter): Promise<{ items: Run[]; total: number }> {
    await this.flush();
    const conditions = [sql`application_id = ${applicationId}`];
    if (filter.triggerId !== undefined) conditions.push(sql`trigger_id = ${filter.triggerId}`);
    if (filter.actionId !== undefined) conditions.push(sql`action_id = ${filter.actionId}`);
    if (filter.status !== undefined) conditions.push(sql`status = ${filter.status}`);
    const where = sql.join(conditions, sql` and `);
    const [rows, count] = await Promise.all([
      sql<RunRow>`select * from appbuilder.runs where ${where} order by id desc limit ${filter.limit} offset ${filter.offset}`.execute(this.db.kysely),
      sql<{ total: number }>`select count(*)::int as total from appbuilder.runs where ${where}`.execute(this.db.kysely),
    ]);
    return { items: rows.rows.map(toRun), total: Number(count.rows[0]?.total ?? 0) };
  }

  async get(applicationId: string, runId: string): Promise<Run | undefined> {
    await this.flush();
    const rows = await sql<RunRow>`select * from appbuilder.runs where application_id = ${applicationId} and id = ${runId}`.execute(this.db.kysely);
    return rows.rows[0] && toRun(rows.rows[0]);
  }

  /** Deletes runs that started before `cutoff`; returns how many. */
  async deleteStartedBefore(cutoff: Date): Promise<number> {
    await this.flush();
    const result = await sql`delete from appbuilder.runs where started_at < ${cutoff.toISOString()}`.execute(this.db.kysely);
    return Number(result.numAffectedRows ?? 0);
  }
}
