/**
 * Data imports of the management API: `POST …/applications/{id}/data-imports` stores the request
 * and queues a `data_import` job (shown in the application's status with its progress); the job
 * waits for the version to be served (an import queued with its publish), reads the documents and
 * writes their rows (run-import.ts); `GET …/data-imports/{id}` answers the report.
 */
import { sql, type ColumnType, type Kysely, type Selectable } from 'kysely';
import type { Db } from '../storage/db.ts';
import type { ControlPlane } from '../storage/tables.ts';
import { conflict, notFound, unprocessable } from '../errors.ts';
import { uuidv7 } from '../tools/ids.ts';
import { jsonb, toIso } from '../storage/sql.ts';
import type { JobRecord, JobStore } from '../jobs/store.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { DeploymentRegistry } from '../runtime/registry.ts';
import type { AttachmentService } from '../services/attachments.ts';
import type { ApplicationService } from '../services/applications/service.ts';
import { specificationsKysely } from '../specifications/tables.ts';
import type { AppDefinition } from '../definition/schema.ts';
import type { Source } from '../specifications/merge.ts';
import type { Actor } from '../access/roles.ts';
import { actorJson } from '../access/actor-context.ts';
import { runImport, type ImportDocument } from './run-import.ts';
import type { ModelReport, OnError, RowError } from './writer.ts';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string, string>;

/** appbuilder.data_imports (migration 021). */
export interface DataImportsTable {
  id: string;
  customer_id: string;
  project_id: string;
  application_id: string;
  specification_id: string | null;
  attachment_ids: Json<string[]>;
  server_version: string | null;
  on_error: string;
  status: string;
  job_id: string | null;
  models: Json<ModelReport[]>;
  errors: Json<RowError[]>;
  notes: Json<string[]>;
  error_message: string | null;
  created_at: Timestamp;
  started_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  completed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_by: ColumnType<Actor | null, string | null | undefined, string | null>;
}

type ImportDb = ControlPlane & { 'appbuilder.data_imports': DataImportsTable };

export type DataImportStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface DataImport {
  id: string;
  applicationId: string;
  specificationId?: string;
  attachmentIds: string[];
  serverVersion?: string;
  onError: OnError;
  status: DataImportStatus;
  jobId?: string;
  models: ModelReport[];
  errors: RowError[];
  notes: string[];
  errorMessage?: string;
  createdAt: string;
  startedAt?: string;
  completedAt?: string;
}

export interface DataImportRequest {
  specificationId?: string;
  attachmentIds?: string[];
  version?: string;
  onError?: OnError;
}

function toDataImport(row: Selectable<DataImportsTable>): DataImport {
  return {
    id: row.id,
    applicationId: row.application_id,
    ...(row.specification_id ? { specificationId: row.specification_id } : {}),
    attachmentIds: row.attachment_ids,
    ...(row.server_version ? { serverVersion: row.server_version } : {}),
    onError: row.on_error as OnError,
    status: row.status as DataImportStatus,
    ...(row.job_id ? { jobId: row.job_id } : {}),
    models: row.models,
    errors: row.errors,
    notes: row.notes,
    ...(row.error_message ? { errorMessage: row.error_message } : {}),
    createdAt: toIso(row.created_at)!,
    ...(row.started_at ? { startedAt: toIso(row.started_at)! } : {}),
    ...(row.completed_at ? { completedAt: toIso(row.completed_at)! } : {}),
  };
}

/** How long an import waits for its version's deployment (queued with it) to serve it. */
const DEPLOYMENT_WAIT_MS = 10 * 60_000;
/** Progress is written to the job's metadata at most this often. */
const PROGRESS_EVERY_MS = 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class DataImportService {
  constructor(
    private readonly db: Db,
    private readonly applications: ApplicationService,
    private readonly attachments: AttachmentService,
    private readonly jobs: JobStore,
    private readonly queue: JobQueue,
    private readonly registry: DeploymentRegistry,
  ) {}

  private get kysely(): Kysely<ImportDb> {
    return this.db.kysely.withTables<{ 'appbuilder.data_imports': DataImportsTable }>();
  }

  /** Stores the import and its job in one transaction, then hands the job to the queue. */
  async create(customerId: string, applicationId: string, input: DataImportRequest): Promise<{ id: string; status: 'queued'; jobId: string }> {
    const application = await this.applications.get(customerId, applicationId);
    let attachmentIds: string[];
    if (input.specificationId) {
      const spec = await specificationsKysely(this.db.kysely)
        .selectFrom('appbuilder.specifications')
        .select(['attachment_ids', 'status'])
        .where('id', '=', input.specificationId)
        .where('customer_id', '=', customerId)
        .where('project_id', '=', application.projectId)
        .executeTakeFirst();
      if (!spec) throw notFound(`Specification ${input.specificationId} was not found in the application's project.`, '/specificationId');
      if (spec.status !== 'succeeded') throw conflict(`The specification is ${spec.status}; only a succeeded one gives data.`, [{ path: '/specificationId', message: `is ${spec.status}` }]);
      attachmentIds = spec.attachment_ids;
    } else if (input.attachmentIds && input.attachmentIds.length > 0) {
      attachmentIds = input.attachmentIds;
      const { missing } = await this.attachments.find(customerId, application.projectId, attachmentIds);
      if (missing.length > 0) {
        throw unprocessable(
          `${missing.length} of the attachments named are not attachments of the application's project.`,
          missing.map((id) => ({ path: `/attachmentIds/${attachmentIds.indexOf(id)}`, message: `No attachment ${id} in this project` })),
        );
      }
    } else {
      throw unprocessable('Name the rows to import: a specificationId or attachmentIds.', [{ path: '/specificationId', message: 'or attachmentIds is required' }]);
    }
    const id = uuidv7();
    const job = await this.db.kysely.transaction().execute(async (trx) => {
      const created = await this.jobs.create({ customerId, projectId: application.projectId, applicationId, jobType: 'data_import', metadata: { dataImportId: id } }, trx);
      await trx
        .withTables<{ 'appbuilder.data_imports': DataImportsTable }>()
        .insertInto('appbuilder.data_imports')
        .values({
          id,
          customer_id: customerId,
          project_id: application.projectId,
          application_id: applicationId,
          specification_id: input.specificationId ?? null,
          attachment_ids: jsonb(attachmentIds),
          server_version: input.version ?? null,
          on_error: input.onError ?? 'abort',
          status: 'queued',
          job_id: created.id,
          models: jsonb([]),
          errors: jsonb([]),
          notes: jsonb([]),
          created_by: actorJson(),
        })
        .execute();
      return created;
    });
    await this.queue.enqueue(job);
    return { id, status: 'queued', jobId: job.id };
  }

  async get(customerId: string, applicationId: string, id: string): Promise<DataImport> {
    const row = await this.kysely
      .selectFrom('appbuilder.data_imports')
      .selectAll()
      .where('id', '=', id)
      .where('application_id', '=', applicationId)
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    if (!row) throw notFound(`Data import ${id} was not found.`, '/dataImportId');
    return toDataImport(row);
  }

  private update(id: string) {
    return this.kysely.updateTable('appbuilder.data_imports').where('id', '=', id);
  }

  /** The version to write into once it is served: asked for, else the application's current one. */
  private async servedVersion(applicationId: string, asked: string | null) {
    const deadline = Date.now() + DEPLOYMENT_WAIT_MS;
    for (;;) {
      const app = await this.db.kysely.selectFrom('appbuilder.applications').select(['server_version']).where('id', '=', applicationId).executeTakeFirst();
      if (!app) throw new Error(`The application ${applicationId} was deleted.`);
      const version = asked ?? app.server_version;
      const served = await this.registry.resolve(applicationId, version);
      if (served) return served;
      const deploying = await this.db.kysely
        .selectFrom('appbuilder.jobs')
        .select('id')
        .where('application_id', '=', applicationId)
        .where('job_type', '=', 'deployment')
        .where('status', 'in', ['queued', 'running'])
        .executeTakeFirst();
      if (!deploying || Date.now() > deadline) throw new Error(`Version ${version} of the application is not published: publish it, then import.`);
      this.registry.invalidate(applicationId);
      await sleep(200);
    }
  }

  /** The job handler. */
  async run(job: JobRecord): Promise<Record<string, unknown>> {
    const id = String(job.metadata.dataImportId ?? '');
    const row = await this.kysely.selectFrom('appbuilder.data_imports').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return { skipped: 'the data import was deleted' };
    await this.update(id).set({ status: 'running', started_at: sql`now()`, error_message: null }).execute();
    try {
      const served = await this.servedVersion(row.application_id, row.server_version);
      const documents: ImportDocument[] = [];
      const { found } = await this.attachments.find(row.customer_id, row.project_id, row.attachment_ids);
      for (const attachment of found) {
        documents.push({ id: attachment.id, name: attachment.name, kind: attachment.kind, bytes: await this.attachments.bytes(row.customer_id, attachment.id) });
      }
      let spec: { content: AppDefinition; provenance: Record<string, Source> } | undefined;
      if (row.specification_id) {
        const stored = await specificationsKysely(this.db.kysely).selectFrom('appbuilder.specifications').select(['content', 'provenance']).where('id', '=', row.specification_id).executeTakeFirst();
        if (stored?.content) spec = { content: stored.content as unknown as AppDefinition, provenance: stored.provenance as Record<string, Source> };
      }
      let last = 0;
      // On PGlite the import's transaction holds the one connection: progress is told at the end only.
      const onProgress = async (rows: number) => {
        if (this.db.driver !== 'postgres') return;
        if (Date.now() - last < PROGRESS_EVERY_MS) return;
        last = Date.now();
        await this.db.kysely
          .updateTable('appbuilder.jobs')
          .set({ metadata: sql`metadata || ${JSON.stringify({ progress: { rowsRead: rows } })}::jsonb` })
          .where('id', '=', job.id)
          .execute();
      };
      const outcome = await runImport(this.db, served.compiled, spec, documents, { onError: row.on_error as OnError, onProgress });
      const first = outcome.report.errors[0];
      await this.update(id)
        .set({
          status: outcome.status,
          models: jsonb(outcome.report.models),
          errors: jsonb(outcome.report.errors),
          notes: jsonb(outcome.report.notes),
          server_version: served.compiled.serverVersion,
          completed_at: sql`now()`,
          error_message: outcome.status === 'failed' && first ? `Row ${first.row} of ${first.model}: ${first.path} ${first.message}`.replace(/ {2}/g, ' ') : null,
        })
        .execute();
      const imported = outcome.report.models.reduce((sum, m) => sum + m.imported, 0);
      const summary = { dataImportId: id, progress: { rowsRead: outcome.report.models.reduce((sum, m) => sum + m.rows, 0), imported } };
      if (outcome.status === 'failed') throw new Error(`The import was aborted at its first bad row and nothing was kept: ${first ? `row ${first.row} of ${first.model}, ${first.path} ${first.message}` : ''}`);
      return summary;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await this.kysely
        .updateTable('appbuilder.data_imports')
        .set({ status: 'failed', error_message: message, completed_at: sql`coalesce(completed_at, now())` })
        .where('id', '=', id)
        .where('status', '=', 'running')
        .execute();
      throw error;
    }
  }
}
