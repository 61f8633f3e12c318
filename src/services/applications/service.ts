import { sql, type Kysely, type Selectable } from 'kysely';
import type { Db } from '../../storage/db.ts';
import type { ApplicationsTable, ControlPlane } from '../../storage/tables.ts';
import { jsonb, toIso } from '../../storage/sql.ts';
import { conflict, notFound, preconditionFailed } from '../../errors.ts';
import { uuidv7 } from '../../tools/ids.ts';
import { actorJson } from '../../access/actor-context.ts';
import { recordAuditIn } from '../../access/audit.ts';
import type { AppDefinition } from '../../definition/schema.ts';
import { primeValidation, validateDefinition } from '../../definition/validate.ts';
import { ExpressionMemo } from '../../definition/consistency/incremental.ts';
import { LruCache } from '../../expressions/index.ts';
import { computeBump, nextVersion } from '../../definition/versioning/index.ts';
import { seal } from '../../definition/versioning/sealed.ts';
import { toStoredForm, type Manifest, type StoredForm } from '../../definition/versioning/stored-form.ts';
import type { JobRecord, JobStore, JobType } from '../../jobs/store.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { DropApplicationData, Page } from '../projects.ts';
import { toApplication, type Application, type ApplicationRow, type ApplicationStatus } from './view.ts';
import { loadCurrentDefinition, storeBlobs, storedHashes } from './version-store.ts';
import { DefinitionCache } from './definition-cache.ts';
import type { DeploymentHealth } from '../../monitoring/health.ts';

const SEMVER = /^\d+\.\d+\.\d+$/;

/** A pure edit of a definition; throws `Problem` when the edit itself is impossible. */
export type DefinitionChange = (definition: AppDefinition) => AppDefinition;

export interface ChangeOptions {
  /** `If-Match` of the request: the serverVersion the caller last saw. */
  ifMatch?: string;
  /** The serverVersion the change was planned against (an assistant proposal): 409 when the application moved on. */
  expectVersion?: string;
  /** Runs in the change's transaction after the new version is stored; throwing undoes the whole change. */
  beforeCommit?: (trx: Kysely<ControlPlane>, versions: { previous: string; next: string }) => Promise<void>;
}

/** Applications: the rows, their definitions and the version written by every change. */
export class ApplicationService {
  constructor(
    private readonly db: Db,
    private readonly jobs: JobStore,
    private readonly queue: JobQueue,
    private readonly dropApplicationData: DropApplicationData,
  ) {}

  /**
   * The expression verdicts of recently edited applications (definition/consistency/incremental.ts):
   * an edit re-checks only the expressions it changed. A few applications at a time, each memo
   * the size of its application's expressions.
   */
  private readonly memos = new LruCache<string, ExpressionMemo>(16);

  /** The current definitions of recently used applications, checked against their rows (definition-cache.ts). */
  private readonly definitions = new DefinitionCache();

  async create(customerId: string, input: { projectId: string; name?: string; scode: unknown }): Promise<Application> {
    const memo = new ExpressionMemo();
    const scode = seal(validateDefinition(input.scode, { memo }));
    const serverVersion = SEMVER.test(scode.version) ? scode.version : '1.0.0';
    const id = uuidv7();
    this.memos.set(id, memo);
    const form = toStoredForm(scode as unknown as Record<string, unknown>);
    await this.db.kysely.transaction().execute(async (trx) => {
      const project = await trx
        .selectFrom('appbuilder.projects')
        .select('id')
        .where('id', '=', input.projectId)
        .where('customer_id', '=', customerId)
        .executeTakeFirst();
      if (!project) throw notFound(`Project ${input.projectId} was not found.`, '/projectId');
      await trx
        .insertInto('appbuilder.applications')
        .values({
          id,
          customer_id: customerId,
          project_id: input.projectId,
          name: input.name ?? null,
          manifest: jsonb(form.manifest),
          server_version: serverVersion,
        })
        .execute();
      await storeBlobs(trx, id, form, { fresh: true });
      await this.insertVersion(trx, id, serverVersion, form.manifest);
    });
    this.definitions.set(id, serverVersion, form.manifest, scode, form.bytes);
    storedHashes(id, scode, form);
    primeValidation(scode, memo);
    return this.get(customerId, id);
  }

  async get(customerId: string, id: string): Promise<Application> {
    const row = await this.findRow(this.db.kysely, customerId, id);
    return toApplication(row, await this.status(id));
  }

  /** The customer's applications; filtered by a project that is not the customer's: 404, as for any other use of it. */
  /** `projectIds`: the caller's project scope (null: every project), applied in SQL so the total is exact. */
  async list(customerId: string, projectId: string | undefined, limit: number, offset: number, projectIds: string[] | null = null): Promise<Page<Application>> {
    let base = this.db.kysely.selectFrom('appbuilder.applications').where('customer_id', '=', customerId);
    if (projectIds !== null) {
      if (projectIds.length === 0) return { items: [], total: 0 };
      base = base.where('project_id', 'in', projectIds);
    }
    if (projectId) {
      const project = await this.db.kysely
        .selectFrom('appbuilder.projects')
        .select('id')
        .where('id', '=', projectId)
        .where('customer_id', '=', customerId)
        .executeTakeFirst();
      if (!project) throw notFound(`Project ${projectId} was not found.`, '/projectId');
      base = base.where('project_id', '=', projectId);
    }
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('id').limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    const items = await Promise.all(rows.map(async (row) => toApplication(await this.withDefinition(this.db.kysely, row), await this.status(row.id))));
    return { items, total: Number(count.total) };
  }

  async delete(customerId: string, id: string): Promise<void> {
    await this.db.kysely.transaction().execute(async (trx) => {
      await this.findRow(trx, customerId, id, true);
      await this.dropApplicationData(id, trx);
      await trx.deleteFrom('appbuilder.applications').where('id', '=', id).execute();
      await recordAuditIn(trx);
    });
    this.definitions.delete(id);
    this.memos.delete(id);
  }

  /**
   * Applies one change: lock the row, check `If-Match`, edit, validate the whole
   * result, store a new immutable version and move `serverVersion`, all in one
   * transaction. Any failure leaves the application exactly as it was.
   */
  async change(customerId: string, id: string, edit: DefinitionChange, options: ChangeOptions = {}): Promise<Application> {
    await this.changeVersion(customerId, id, edit, options);
    return this.get(customerId, id);
  }

  /** `change` answering only the new serverVersion (`Prefer: return=minimal`): no Application is read back. */
  async changeVersion(customerId: string, id: string, edit: DefinitionChange, options: ChangeOptions = {}): Promise<string> {
    const changed = await this.db.kysely.transaction().execute(async (trx) => {
      const row = await this.selectRow(trx, customerId, id, true);
      if (options.ifMatch !== undefined && options.ifMatch !== row.server_version) {
        throw preconditionFailed(`The application is at version ${row.server_version}, not ${options.ifMatch}.`);
      }
      if (options.expectVersion !== undefined && options.expectVersion !== row.server_version) {
        throw conflict(`The application moved on to version ${row.server_version} since version ${options.expectVersion}.`, [
          { path: '/serverVersion', message: `Is ${row.server_version}, not ${options.expectVersion}` },
        ]);
      }
      // Sealed (deeply frozen): the edit shares what it does not change with the result, and cannot change it.
      const previous = await this.definitionOf(trx, row);
      const memo = this.memos.getOrCreate(id, () => new ExpressionMemo());
      const next = seal(validateDefinition(edit(previous), { memo }));
      const serverVersion = nextVersion(row.server_version, computeBump(previous, next));
      // Only what the change made new is hashed and stored: the rest is the previous version's.
      const form = toStoredForm(next as unknown as Record<string, unknown>);
      await storeBlobs(trx, id, form, { present: storedHashes(id, previous) });
      storedHashes(id, next, form);
      await trx
        .updateTable('appbuilder.applications')
        .set({ manifest: jsonb(form.manifest), server_version: serverVersion, updated_at: sql`now()` })
        .where('id', '=', id)
        .execute();
      await this.insertVersion(trx, id, serverVersion, form.manifest);
      await options.beforeCommit?.(trx, { previous: row.server_version, next: serverVersion });
      return { serverVersion, next, form };
    });
    this.remember(id, changed.serverVersion, changed.form, changed.next);
    return changed.serverVersion;
  }

  private remember(id: string, serverVersion: string, form: StoredForm, definition: AppDefinition): void {
    this.definitions.set(id, serverVersion, form.manifest, definition, form.bytes);
  }

  /**
   * Stores a job row for the application and hands it to the queue. The row is
   * committed first; a crash before the send is repaired by the queue's sweep.
   */
  async submitJob(customerId: string, id: string, jobType: JobType, metadata: Record<string, unknown> = {}): Promise<JobRecord> {
    const row = await this.findRow(this.db.kysely, customerId, id);
    const job = await this.jobs.create({ customerId, projectId: row.project_id, applicationId: id, jobType, metadata: { applicationId: id, ...metadata } });
    return this.queue.enqueue(job);
  }

  /** Health of each served version from the request log (monitoring/, DESIGN §19), merged into `status.deployments`. */
  private deploymentHealth: ((applicationId: string) => Promise<Map<string, DeploymentHealth>>) | null = null;

  useDeploymentHealth(read: (applicationId: string) => Promise<Map<string, DeploymentHealth>>): void {
    this.deploymentHealth = read;
  }

  async status(applicationId: string): Promise<ApplicationStatus> {
    const [jobs, deployments, migrations, health] = await Promise.all([
      this.jobs.listForApplication(applicationId),
      this.db.kysely
        .selectFrom('appbuilder.deployments')
        .selectAll()
        .where('application_id', '=', applicationId)
        .orderBy('published_at', 'desc')
        .execute(),
      this.db.kysely
        .selectFrom('appbuilder.app_migrations')
        // Not the statements themselves (0.5 MB for a 500-model schema): the status lists the summary.
        .select(['server_version', 'applied_at', 'summary'])
        .where('application_id', '=', applicationId)
        .orderBy('applied_at', 'desc')
        .limit(50)
        .execute(),
      this.deploymentHealth?.(applicationId) ?? null,
    ]);
    return {
      jobs,
      deployments: deployments.map((d) => ({
        serverVersion: d.server_version,
        state: d.state,
        ...(d.published_at ? { publishedAt: toIso(d.published_at) } : {}),
        ...(d.unpublished_at ? { unpublishedAt: toIso(d.unpublished_at) } : {}),
        ...health?.get(d.server_version),
      })),
      migrations: migrations.map((m) => ({ serverVersion: m.server_version, appliedAt: toIso(m.applied_at)!, statements: m.summary })),
    };
  }

  /** The row of an application of this customer, with its current definition; another customer's is "not found". */
  async findRow(executor: Kysely<ControlPlane>, customerId: string, id: string, lock = false): Promise<ApplicationRow> {
    return this.withDefinition(executor, await this.selectRow(executor, customerId, id, lock));
  }

  /** The row alone (its definition's manifest, not the definition). */
  private async selectRow(executor: Kysely<ControlPlane>, customerId: string, id: string, lock: boolean): Promise<Selectable<ApplicationsTable>> {
    let query = executor.selectFrom('appbuilder.applications').selectAll().where('id', '=', id).where('customer_id', '=', customerId);
    if (lock) query = query.forUpdate();
    const row = await query.executeTakeFirst();
    if (!row) throw notFound(`Application ${id} was not found.`, '/applicationId');
    return row;
  }

  private async withDefinition(executor: Kysely<ControlPlane>, row: Selectable<ApplicationsTable>): Promise<ApplicationRow> {
    const { manifest: _manifest, ...rest } = row;
    return { ...rest, scode: await this.definitionOf(executor, row) };
  }

  /** The row's current definition, sealed: from the cache when it holds the one the row names, else read back (and cached). */
  private async definitionOf(executor: Kysely<ControlPlane>, row: Selectable<ApplicationsTable>): Promise<AppDefinition> {
    const cached = this.definitions.get(row.id, row.server_version, row.manifest);
    if (cached) return cached;
    const manifest = row.manifest as Manifest;
    const loaded = await loadCurrentDefinition(executor, row.id, manifest);
    // Kept whatever becomes of the transaction reading it: the manifest names this definition and no other.
    this.definitions.set(row.id, row.server_version, manifest, loaded.definition, loaded.bytes);
    return loaded.definition;
  }

  private async insertVersion(executor: Kysely<ControlPlane>, applicationId: string, serverVersion: string, manifest: Manifest): Promise<void> {
    // Stored by difference: the blobs are stored beforehand (version-store.ts); the row names them.
    await executor
      .insertInto('appbuilder.application_version_rows')
      .values({ id: uuidv7(), application_id: applicationId, server_version: serverVersion, manifest: jsonb(manifest), created_by: actorJson() })
      .execute();
    // Every change that makes a version is recorded in its own transaction (access/audit.ts).
    await recordAuditIn(executor);
  }
}
