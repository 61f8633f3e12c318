/**
 * Backups of one application (management API, backups routes): `create` stores the record and
 * queues a `backup` job; the job writes the archive (snapshot.ts) to the storage driver, reads it
 * back and runs the restore drill (restore.ts) before marking it verified. `restore` checks the
 * archive at once (422 naming the part, nothing changed) and queues a `restore` job that writes
 * it back in one transaction.
 */
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { sql, type ColumnType, type Kysely, type Selectable } from 'kysely';
import type { Db } from '../storage/db.ts';
import type { ControlPlane } from '../storage/tables.ts';
import { notFound, unprocessable } from '../errors.ts';
import { uuidv7 } from '../tools/ids.ts';
import { jsonb, toIso } from '../storage/sql.ts';
import type { JobRecord, JobStore } from '../jobs/store.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { StorageDriver } from '../files/drivers/driver.ts';
import type { ApplicationService } from '../services/applications/service.ts';
import type { DeploymentRegistry } from '../runtime/registry.ts';
import type { Actor } from '../access/roles.ts';
import { actorJson } from '../access/actor-context.ts';
import { openArchive, type Manifest, type OpenedArchive } from './archive.ts';
import { writeSnapshot } from './snapshot.ts';
import { drill, restoreInPlace } from './restore.ts';
import { restoreAsNew } from './restore-new.ts';
import type { Application } from '../services/applications/view.ts';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** appbuilder.backups (migration 022). */
export interface BackupsTable {
  id: string;
  customer_id: string;
  project_id: string;
  application_id: string;
  status: string;
  job_id: string | null;
  blob_key: string | null;
  bytes: number | null;
  sha256: string | null;
  verified: boolean;
  manifest: ColumnType<Manifest | null, string | null, string | null>;
  error_message: string | null;
  created_at: Timestamp;
  completed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_by: ColumnType<Actor | null, string | null | undefined, string | null>;
}

type BackupDb = ControlPlane & { 'appbuilder.backups': BackupsTable };

export type BackupStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface Backup {
  id: string;
  applicationId: string;
  status: BackupStatus;
  jobId?: string;
  createdAt: string;
  completedAt?: string;
  bytes: number | null;
  sha256: string | null;
  verified: boolean;
  /** Per table of the application's data: rows and checksum. */
  models?: Record<string, { rows: number; checksum: string }>;
  errorMessage?: string;
}

function toBackup(row: Selectable<BackupsTable>): Backup {
  return {
    id: row.id,
    applicationId: row.application_id,
    status: row.status as BackupStatus,
    ...(row.job_id ? { jobId: row.job_id } : {}),
    createdAt: toIso(row.created_at)!,
    ...(row.completed_at ? { completedAt: toIso(row.completed_at)! } : {}),
    bytes: row.bytes === null ? null : Number(row.bytes),
    sha256: row.sha256,
    verified: row.verified,
    ...(row.manifest ? { models: row.manifest.models } : {}),
    ...(row.error_message ? { errorMessage: row.error_message } : {}),
  };
}

/** Progress is written to the job's metadata at most this often (PostgreSQL only: on PGlite the job holds the one connection). */
const PROGRESS_EVERY_MS = 1000;

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

export class BackupService {
  constructor(
    private readonly db: Db,
    private readonly applications: ApplicationService,
    private readonly driver: StorageDriver,
    private readonly jobs: JobStore,
    private readonly queue: JobQueue,
    private readonly registry: DeploymentRegistry,
    private readonly masterKey: Buffer,
  ) {}

  private get kysely(): Kysely<BackupDb> {
    return this.db.kysely.withTables<{ 'appbuilder.backups': BackupsTable }>();
  }

  /** Stores the backup and its job in one transaction, then hands the job to the queue. */
  async create(customerId: string, applicationId: string): Promise<{ id: string; status: 'queued'; jobId: string }> {
    const application = await this.applications.get(customerId, applicationId);
    const id = uuidv7();
    const job = await this.db.kysely.transaction().execute(async (trx) => {
      const created = await this.jobs.create({ customerId, projectId: application.projectId, applicationId, jobType: 'backup', metadata: { backupId: id } }, trx);
      await trx
        .withTables<{ 'appbuilder.backups': BackupsTable }>()
        .insertInto('appbuilder.backups')
        .values({ id, customer_id: customerId, project_id: application.projectId, application_id: applicationId, status: 'queued', job_id: created.id, verified: false, created_by: actorJson() })
        .execute();
      return created;
    });
    await this.queue.enqueue(job);
    return { id, status: 'queued', jobId: job.id };
  }

  private async row(customerId: string, applicationId: string, id: string): Promise<Selectable<BackupsTable>> {
    const row = await this.kysely
      .selectFrom('appbuilder.backups')
      .selectAll()
      .where('id', '=', id)
      .where('application_id', '=', applicationId)
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    if (!row) throw notFound(`Backup ${id} was not found.`, '/backupId');
    return row;
  }

  async get(customerId: string, applicationId: string, id: string): Promise<Backup> {
    return toBackup(await this.row(customerId, applicationId, id));
  }

  async list(customerId: string, applicationId: string, page: { limit?: number; offset?: number }): Promise<{ items: Backup[]; metadata: { total: number } }> {
    await this.applications.get(customerId, applicationId);
    const base = this.kysely.selectFrom('appbuilder.backups').where('application_id', '=', applicationId).where('customer_id', '=', customerId);
    const rows = await base
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit ?? 20)
      .offset(page.offset ?? 0)
      .execute();
    const total = await base.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
    return { items: rows.map(toBackup), metadata: { total: total.n } };
  }

  /** The archive's bytes as a stream, with its size. */
  async content(customerId: string, applicationId: string, id: string): Promise<{ stream: Readable; bytes: number; sha256: string }> {
    const row = await this.row(customerId, applicationId, id);
    if (row.status !== 'succeeded' || !row.blob_key) throw notFound(`Backup ${id} has no archive (it is ${row.status}).`, '/backupId');
    return { stream: await this.driver.get(row.blob_key), bytes: Number(row.bytes), sha256: row.sha256 ?? '' };
  }

  async remove(customerId: string, applicationId: string, id: string): Promise<void> {
    const row = await this.row(customerId, applicationId, id);
    await this.kysely.deleteFrom('appbuilder.backups').where('id', '=', row.id).execute();
    if (row.blob_key) await this.driver.remove(row.blob_key).catch(() => {}); // else the sweeper takes it
  }

  /** The checked archive of a backup of this application; 422 naming the part when it cannot be restored. */
  private async archiveOf(row: Selectable<BackupsTable>, applicationId: string): Promise<OpenedArchive> {
    if (row.status !== 'succeeded' || !row.blob_key) throw unprocessable(`Backup ${row.id} is ${row.status}: only a finished backup can be restored.`, [{ path: '/backupId', message: `is ${row.status}` }]);
    let bytes: Buffer;
    try {
      bytes = await readAll(await this.driver.get(row.blob_key));
    } catch {
      throw unprocessable(`The archive of backup ${row.id} is missing from storage.`, [{ path: '/archive', message: 'missing' }]);
    }
    const archive = openArchive(bytes);
    if (archive.manifest.applicationId !== applicationId || archive.manifest.customerId !== row.customer_id) {
      throw unprocessable('The archive is of another application.', [{ path: '/archive/manifest.json/applicationId', message: `is ${archive.manifest.applicationId}, not ${applicationId}` }]);
    }
    return archive;
  }

  /** Checks the backup's archive (422, nothing changed), then queues its restore over the application. */
  async restore(customerId: string, applicationId: string, backupId: string): Promise<{ id: string; status: 'queued'; jobId: string }> {
    const application = await this.applications.get(customerId, applicationId);
    const row = await this.row(customerId, applicationId, backupId);
    await this.archiveOf(row, applicationId);
    const job = await this.jobs.create({ customerId, projectId: application.projectId, applicationId, jobType: 'restore', metadata: { backupId, applicationId } });
    await this.queue.enqueue(job);
    return { id: backupId, status: 'queued', jobId: job.id };
  }

  /**
   * A new application from a backup of any of the customer's applications, in `projectId`: one
   * transaction; the answer is the new Application.
   */
  async createFromBackup(customerId: string, input: { projectId: string; name?: string; fromBackup: string }): Promise<Application & { warnings?: string[] }> {
    const project = await this.db.kysely.selectFrom('appbuilder.projects').select('id').where('id', '=', input.projectId).where('customer_id', '=', customerId).executeTakeFirst();
    if (!project) throw notFound(`Project ${input.projectId} was not found.`, '/projectId');
    const row = await this.kysely.selectFrom('appbuilder.backups').selectAll().where('id', '=', input.fromBackup).where('customer_id', '=', customerId).executeTakeFirst();
    if (!row) throw notFound(`Backup ${input.fromBackup} was not found.`, '/fromBackup');
    const archive = await this.archiveOf(row, row.application_id);
    const id = uuidv7();
    const warnings = await restoreAsNew(this.db, this.driver, archive, { id, customerId, projectId: input.projectId, name: input.name ?? null }, this.masterKey);
    this.registry.invalidate(id);
    const application = await this.applications.get(customerId, id);
    return warnings.length > 0 ? { ...application, warnings } : application;
  }

  private progress(jobId: string) {
    let last = 0;
    return async (progress: Record<string, unknown>) => {
      if (this.db.driver !== 'postgres' || Date.now() - last < PROGRESS_EVERY_MS) return;
      last = Date.now();
      await this.db.kysely
        .updateTable('appbuilder.jobs')
        .set({ metadata: sql`metadata || ${JSON.stringify({ progress })}::jsonb` })
        .where('id', '=', jobId)
        .execute();
    };
  }

  /** The `backup` job: archive, store, drill, verified. */
  async runBackup(job: JobRecord): Promise<Record<string, unknown>> {
    const id = String(job.metadata.backupId ?? '');
    const row = await this.kysely.selectFrom('appbuilder.backups').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return { skipped: 'the backup was deleted' };
    await this.kysely.updateTable('appbuilder.backups').set({ status: 'running', error_message: null }).where('id', '=', id).execute();
    const path = join(tmpdir(), `appbuilder-backup-${id}.zip`);
    const blobKey = uuidv7();
    const progress = this.progress(job.id);
    let stored = false;
    try {
      const started = Date.now();
      const written = await writeSnapshot(this.db, this.driver, { applicationId: row.application_id, customerId: row.customer_id }, path, ({ rows }) => progress({ phase: 'backup', rows }));
      const backedUpMs = Date.now() - started;
      await this.driver.put(blobKey, createReadStream(path));
      stored = true;
      // The drill reads what storage holds, not what was meant to be written.
      const archive = openArchive(await readAll(await this.driver.get(blobKey)));
      const drillStarted = Date.now();
      const restored = await drill(this.db, archive);
      const verifiedMs = Date.now() - drillStarted;
      await this.kysely
        .updateTable('appbuilder.backups')
        .set({ status: 'succeeded', blob_key: blobKey, bytes: written.bytes, sha256: written.sha256, verified: true, manifest: jsonb(archive.manifest), completed_at: sql`now()` })
        .where('id', '=', id)
        .execute();
      return { backupId: id, progress: { phase: 'verified', rows: written.rows, restoredRows: restored }, backedUpMs, verifiedMs };
    } catch (error) {
      if (stored) await this.driver.remove(blobKey).catch(() => {});
      const message = error instanceof Error ? error.message : String(error);
      await this.kysely.updateTable('appbuilder.backups').set({ status: 'failed', verified: false, error_message: message, completed_at: sql`now()` }).where('id', '=', id).execute();
      throw error;
    } finally {
      await rm(path, { force: true });
    }
  }

  /** The `restore` job: the archive over its application, in one transaction. */
  async runRestore(job: JobRecord): Promise<Record<string, unknown>> {
    const backupId = String(job.metadata.backupId ?? '');
    const applicationId = String(job.metadata.applicationId ?? '');
    const row = await this.kysely.selectFrom('appbuilder.backups').selectAll().where('id', '=', backupId).where('application_id', '=', applicationId).executeTakeFirst();
    if (!row) throw new Error(`Backup ${backupId} was deleted before its restore ran.`);
    const archive = await this.archiveOf(row, applicationId);
    const progress = this.progress(job.id);
    const rows = await restoreInPlace(this.db, this.driver, archive, applicationId, (restored) => progress({ phase: 'restore', rows: restored }));
    this.registry.invalidate(applicationId);
    return { backupId, applicationId, progress: { phase: 'restored', rows } };
  }
}
