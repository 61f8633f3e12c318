import { sql, type Kysely, type Selectable } from 'kysely';
import type { Db } from '../storage/db.ts';
import type { ControlPlane, JobsTable } from '../storage/tables.ts';
import { jsonb, toIso } from '../storage/sql.ts';
import { uuidv7 } from '../tools/ids.ts';
import type { Actor } from '../access/roles.ts';
import { actorJson } from '../access/actor-context.ts';
import { recordAuditIn } from '../access/audit.ts';

/**
 * The job types we queue. No `migration` job: a version's migration runs inside its `deployment`
 * job, in the transaction that also switches routing (DESIGN §3, §8), and is reported in the
 * Application's `status.migrations`; a separate job could migrate without serving, or serve a
 * schema it did not migrate.
 */
export type JobType =
  | 'generation'
  | 'deployment'
  | 'frontend_bundle'
  | 'figma_code_generation'
  | 'specification_generation'
  | 'data_import'
  | 'backup'
  | 'restore';
export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** The job record as the spec shows it inside an Application's status. */
export interface JobRecord {
  id: string;
  implementationJobId?: string;
  jobType: string;
  status: string;
  customerId: string;
  projectId: string;
  metadata: Record<string, unknown>;
  errorMessage?: string;
  errorStack?: string;
  startedAt?: string;
  completedAt?: string;
  /** Who queued it (DESIGN §10): the management caller, or null for jobs no caller started. */
  createdBy: Actor | null;
}

/** The reduced record of the dedicated status endpoint (spec endpoint 6). */
export type JobSummary = Pick<JobRecord, 'id' | 'jobType' | 'status' | 'projectId' | 'startedAt' | 'completedAt'>;

export function toJobRecord(row: Selectable<JobsTable>): JobRecord {
  return {
    id: row.id,
    ...(row.implementation_job_id ? { implementationJobId: row.implementation_job_id } : {}),
    jobType: row.job_type,
    status: row.status,
    customerId: row.customer_id,
    projectId: row.project_id,
    metadata: row.metadata,
    ...(row.error_message ? { errorMessage: row.error_message } : {}),
    ...(row.error_stack ? { errorStack: row.error_stack } : {}),
    ...(row.started_at ? { startedAt: toIso(row.started_at) } : {}),
    ...(row.completed_at ? { completedAt: toIso(row.completed_at) } : {}),
    createdBy: row.created_by,
  };
}

export function toJobSummary(job: JobRecord): JobSummary {
  const { id, jobType, status, projectId, startedAt, completedAt } = job;
  return { id, jobType, status, projectId, ...(startedAt ? { startedAt } : {}), ...(completedAt ? { completedAt } : {}) };
}

/** The stored side of jobs: rows in `appbuilder.jobs` and their state changes. */
export class JobStore {
  constructor(private readonly db: Db) {}

  async create(
    input: { customerId: string; projectId: string; applicationId: string | null; jobType: JobType; metadata?: Record<string, unknown> },
    executor: Kysely<ControlPlane> = this.db.kysely,
  ): Promise<JobRecord> {
    const row = await executor
      .insertInto('appbuilder.jobs')
      .values({
        id: uuidv7(),
        customer_id: input.customerId,
        project_id: input.projectId,
        application_id: input.applicationId,
        job_type: input.jobType,
        status: 'queued',
        metadata: jsonb(input.metadata ?? {}),
        created_by: actorJson(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    // A job a management write queues (publish, generate) is recorded with it (access/audit.ts).
    await recordAuditIn(executor);
    return toJobRecord(row);
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const row = await this.db.kysely.selectFrom('appbuilder.jobs').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toJobRecord(row) : undefined;
  }

  async setImplementationId(id: string, implementationJobId: string): Promise<void> {
    await this.db.kysely.updateTable('appbuilder.jobs').set({ implementation_job_id: implementationJobId }).where('id', '=', id).execute();
  }

  async markRunning(id: string): Promise<void> {
    await this.db.kysely
      .updateTable('appbuilder.jobs')
      .set({ status: 'running', started_at: new Date(), error_message: null, error_stack: null })
      .where('id', '=', id)
      .execute();
  }

  async markSucceeded(id: string, metadata?: Record<string, unknown>): Promise<void> {
    await this.db.kysely
      .updateTable('appbuilder.jobs')
      .set({ status: 'succeeded', completed_at: new Date(), ...(metadata ? { metadata: jsonb(metadata) } : {}) })
      .where('id', '=', id)
      .execute();
  }

  async markFailed(id: string, error: unknown, final: boolean): Promise<void> {
    const err = error instanceof Error ? error : new Error(String(error));
    await this.db.kysely
      .updateTable('appbuilder.jobs')
      .set({
        status: final ? 'failed' : 'queued',
        error_message: err.message,
        error_stack: err.stack ?? null,
        ...(final ? { completed_at: new Date() } : {}),
      })
      .where('id', '=', id)
      .execute();
  }

  /**
   * Queued rows that were committed but never handed to the queue (the process died
   * between the commit and the send), older than `olderThanSeconds` by the database clock
   * so a send still in flight elsewhere is left alone.
   */
  async listUnsent(olderThanSeconds: number, limit = 100): Promise<JobRecord[]> {
    const rows = await this.db.kysely
      .selectFrom('appbuilder.jobs')
      .selectAll()
      .where('status', '=', 'queued')
      .where('implementation_job_id', 'is', null)
      .where('created_at', '<', sql<Date>`now() - make_interval(secs => ${olderThanSeconds})`)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toJobRecord);
  }

  /** Rows marked running, oldest first: the queue checks them against its own state. */
  async listRunning(limit = 100): Promise<JobRecord[]> {
    const rows = await this.db.kysely
      .selectFrom('appbuilder.jobs')
      .selectAll()
      .where('status', '=', 'running')
      .orderBy('started_at')
      .limit(limit)
      .execute();
    return rows.map(toJobRecord);
  }

  async listForApplication(applicationId: string, limit = 50): Promise<JobRecord[]> {
    const rows = await this.db.kysely
      .selectFrom('appbuilder.jobs')
      .selectAll()
      .where('application_id', '=', applicationId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toJobRecord);
  }
}
