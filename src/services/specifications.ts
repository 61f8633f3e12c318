/**
 * Specifications (DESIGN §13): built from a project's attachments by a
 * `specification_generation` job, read, deleted, and applied to a new or an existing
 * application through the applications service (one change, one version).
 */
import { sql, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { Db } from '../storage/db.ts';
import { conflict, notFound, unprocessable } from '../errors.ts';
import { uuidv7 } from '../tools/ids.ts';
import { jsonb, toIso } from '../storage/sql.ts';
import type { JobRecord, JobStore, JobSummary } from '../jobs/store.ts';
import { toJobRecord, toJobSummary } from '../jobs/store.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { AppDefinition } from '../definition/schema.ts';
import type { BuildAttachment, SpecSummary } from '../specifications/build.ts';
import type { ExtractionSandbox } from '../specifications/sandbox.ts';
import { ACCESS_MODES, DEFAULT_ACCESS_MODE, type AccessMode } from '../specifications/access-proposal.ts';
import { addMissing } from '../specifications/apply.ts';
import type { Source, SpecWarning } from '../specifications/merge.ts';
import { specificationsKysely, type SpecificationsDb, type SpecificationsTable } from '../specifications/tables.ts';
import type { ApplicationService } from './applications/service.ts';
import type { Application } from './applications/view.ts';
import type { AttachmentService } from './attachments.ts';
import type { Page } from './projects.ts';

export type SpecificationStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface Specification {
  id: string;
  projectId: string;
  name: string;
  attachmentIds: string[];
  status: SpecificationStatus;
  createdAt: string;
  updatedAt: string;
  errorMessage?: string;
  /** The definition built (null until the job succeeds). */
  content: AppDefinition | null;
  provenance: Record<string, Source>;
  warnings: SpecWarning[];
  summary: SpecSummary | null;
}

/** A specification row with its job's status: a job that ended without building it (a worker died past its lease) fails it. */
type Row = Selectable<SpecificationsTable> & { job_status?: string | null; job_error?: string | null };

function toSpecification(row: Row): Specification {
  const pending = row.status === 'queued' || row.status === 'running';
  if (pending && (row.job_status === 'failed' || row.job_status === 'cancelled')) {
    row = { ...row, status: 'failed', error_message: row.job_error || `The ${row.job_status} job did not build the specification.` };
  }
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    attachmentIds: row.attachment_ids,
    status: row.status as SpecificationStatus,
    createdAt: toIso(row.created_at)!,
    updatedAt: toIso(row.updated_at)!,
    ...(row.error_message ? { errorMessage: row.error_message } : {}),
    content: (row.content as AppDefinition | null) ?? null,
    provenance: row.provenance as Record<string, Source>,
    warnings: row.warnings as SpecWarning[],
    summary: row.summary as SpecSummary | null,
  };
}

export class SpecificationService {
  constructor(
    private readonly db: Db,
    private readonly attachments: AttachmentService,
    private readonly applications: ApplicationService,
    private readonly jobs: JobStore,
    private readonly queue: JobQueue,
    /** Where documents are read: worker threads bounded in time and memory, never this thread. */
    private readonly sandbox: ExtractionSandbox,
  ) {}

  /** Ends the workers that read documents (the service stops). */
  close(): Promise<void> {
    return this.sandbox.close();
  }

  private get kysely() {
    return specificationsKysely(this.db.kysely);
  }

  /** Stores the specification and its job in one transaction, then hands the job to the queue. */
  async create(
    customerId: string,
    projectId: string,
    input: { attachmentIds: string[]; name?: string; instructions?: string; access?: AccessMode; force?: boolean },
  ): Promise<{ id: string; status: 'queued'; jobId: string }> {
    await this.attachments.checkProject(customerId, projectId);
    const { found, missing } = await this.attachments.find(customerId, projectId, input.attachmentIds);
    if (missing.length > 0) {
      throw unprocessable(
        `${missing.length} of the attachments named are not attachments of project ${projectId}.`,
        missing.map((id) => ({ path: `/attachmentIds/${input.attachmentIds.indexOf(id)}`, message: `No attachment ${id} in this project` })),
      );
    }
    const name = input.name?.trim() || found.map((a) => a.name).join(', ').slice(0, 200) || 'Specification';
    const id = uuidv7();
    const job = await this.db.kysely.transaction().execute(async (trx) => {
      const created = await this.jobs.create({ customerId, projectId, applicationId: null, jobType: 'specification_generation', metadata: { specificationId: id, access: input.access ?? DEFAULT_ACCESS_MODE, force: input.force === true } }, trx);
      await specificationsKysely(trx)
        .insertInto('appbuilder.specifications')
        .values({
          id,
          customer_id: customerId,
          project_id: projectId,
          name,
          attachment_ids: jsonb(input.attachmentIds),
          instructions: input.instructions ?? null,
          status: 'queued',
          job_id: created.id,
          provenance: jsonb({}),
          warnings: jsonb([]),
        })
        .execute();
      return created;
    });
    await this.queue.enqueue(job);
    return { id, status: 'queued', jobId: job.id };
  }

  async list(customerId: string, projectId: string, limit: number, offset: number): Promise<Page<Specification>> {
    await this.attachments.checkProject(customerId, projectId);
    const base = this.kysely
      .selectFrom('appbuilder.specifications')
      .where('appbuilder.specifications.project_id', '=', projectId)
      .where('appbuilder.specifications.customer_id', '=', customerId);
    const [rows, count] = await Promise.all([
      this.withJob(base).orderBy('appbuilder.specifications.id').limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(toSpecification), total: Number(count.total) };
  }

  async get(customerId: string, projectId: string, id: string): Promise<Specification> {
    await this.attachments.checkProject(customerId, projectId);
    const row = await this.withJob(
      this.kysely
        .selectFrom('appbuilder.specifications')
        .where('appbuilder.specifications.id', '=', id)
        .where('appbuilder.specifications.project_id', '=', projectId)
        .where('appbuilder.specifications.customer_id', '=', customerId),
    ).executeTakeFirst();
    if (!row) throw notFound(`Specification ${id} was not found.`, '/specificationId');
    return toSpecification(row);
  }

  async delete(customerId: string, projectId: string, id: string): Promise<void> {
    await this.get(customerId, projectId, id);
    await this.kysely.deleteFrom('appbuilder.specifications').where('id', '=', id).execute();
  }

  /** The project's jobs, newest first, with the members of the status endpoint (spec endpoint 6). */
  async jobsOf(customerId: string, projectId: string, limit: number, offset: number, jobType?: string): Promise<Page<JobSummary>> {
    await this.attachments.checkProject(customerId, projectId);
    let base = this.db.kysely.selectFrom('appbuilder.jobs').where('project_id', '=', projectId).where('customer_id', '=', customerId);
    if (jobType) base = base.where('job_type', '=', jobType);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map((row) => toJobSummary(toJobRecord(row))), total: Number(count.total) };
  }

  /** The job handler: builds the content from the attachments as they are now. */
  async run(job: JobRecord): Promise<Record<string, unknown>> {
    const id = String(job.metadata.specificationId ?? '');
    const row = await this.kysely.selectFrom('appbuilder.specifications').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return { skipped: 'the specification was deleted' };
    await this.updateOf(id).set({ status: 'running', error_message: null, updated_at: sql`now()` }).execute();
    try {
      const attachments: BuildAttachment[] = [];
      const gone: string[] = [];
      const { found, missing } = await this.attachments.find(row.customer_id, row.project_id, row.attachment_ids);
      gone.push(...missing);
      for (const attachment of found) {
        attachments.push({ id: attachment.id, name: attachment.name, kind: attachment.kind, bytes: await this.attachments.bytes(row.customer_id, attachment.id) });
      }
      // The access asked for at creation (kept with the job); a job queued before it existed: the default.
      const asked = job.metadata.access;
      const access = ACCESS_MODES.find((mode) => mode === asked) ?? DEFAULT_ACCESS_MODE;
      const built = await this.sandbox.build(row.name, attachments, { access, force: job.metadata.force === true });
      const warnings = [...gone.map((g) => ({ attachmentId: g, message: `The attachment ${g} was deleted before the specification was built.` })), ...built.warnings];
      await this.updateOf(id)
        .set({
          status: 'succeeded',
          content: jsonb(built.content),
          provenance: jsonb(built.provenance),
          warnings: jsonb(warnings),
          summary: jsonb(built.summary),
          updated_at: sql`now()`,
        })
        .execute();
      return { specificationId: id, models: built.summary.models, warnings: warnings.length };
    } catch (error) {
      // The job fails with the same message (runJob); the specification says it too.
      const message = error instanceof Error ? error.message : String(error);
      await this.updateOf(id).set({ status: 'failed', error_message: message, updated_at: sql`now()` }).execute();
      throw error;
    }
  }

  /** The rows with their job's status and error: the row's own status stays behind when a worker died mid-build. */
  private withJob(query: SelectQueryBuilder<SpecificationsDb, 'appbuilder.specifications', object>) {
    return query
      .leftJoin('appbuilder.jobs as job', 'job.id', 'appbuilder.specifications.job_id')
      .selectAll('appbuilder.specifications')
      .select(['job.status as job_status', 'job.error_message as job_error']);
  }

  private updateOf(id: string) {
    return this.kysely.updateTable('appbuilder.specifications').where('id', '=', id);
  }

  /**
   * Without `applicationId`: a new application of the project from the content (201). With
   * one: the application after one change that adds what it lacks (200); 409 listing clashes.
   */
  async apply(
    customerId: string,
    projectId: string,
    id: string,
    input: { applicationId?: string; name?: string },
  ): Promise<{ created: boolean; application: Application }> {
    const spec = await this.get(customerId, projectId, id);
    if (spec.status !== 'succeeded' || !spec.content) {
      throw conflict(`The specification is ${spec.status}; only a succeeded one can be applied.`, [{ path: '/status', message: `is ${spec.status}` }]);
    }
    const content = spec.content;
    if (!input.applicationId) {
      const application = await this.applications.create(customerId, { projectId, name: input.name ?? spec.name, scode: content });
      return { created: true, application };
    }
    const current = await this.applications.get(customerId, input.applicationId);
    if (current.projectId !== projectId) throw notFound(`Application ${input.applicationId} was not found in project ${projectId}.`, '/applicationId');
    // Checked first without the lock, so an application that lacks nothing gets no new version.
    if (addMissing(current.scode, content).added.length === 0) return { created: false, application: current };
    const application = await this.applications.change(customerId, input.applicationId, (definition) => addMissing(definition, content).definition);
    return { created: false, application };
  }
}
