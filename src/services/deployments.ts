import { sql } from 'kysely';
import { withoutStatementTimeout, type Db } from '../storage/db.ts';
import { jsonb } from '../storage/sql.ts';
import { notFound } from '../errors.ts';
import { uuidv7 } from '../tools/ids.ts';
import type { AppDefinition } from '../definition/schema.ts';
import type { JobRecord } from '../jobs/store.ts';
import { compileApp } from '../runtime/compiled-app.ts';
import type { DeploymentRegistry } from '../runtime/registry.ts';
import { runtimeSchemaStatements } from '../runtime/schema-extras.ts';
import { notifyServedChange } from '../runtime/served-notices.ts';
import { planMigration, runMigration, summarizeMigration } from '../compiler/schema/index.ts';
import { checkMigration } from './migration-check.ts';
import { purgeFields } from './purge.ts';
import type { ApplicationService } from './applications/service.ts';
import type { Application } from './applications/view.ts';
import { checkConfigReferences } from '../secrets/references.ts';
import { accessSummaryOf, accessSummaryOfDefinition, type AccessSummary } from '../advisor/summary.ts';

/**
 * Publishing: a `deployment` job migrates the app's schema to the version and then
 * serves it, in one transaction; routing switches when it commits. Unpublishing
 * stops serving one version or all of them.
 */
export class DeploymentService {
  private readonly servedListeners: Array<(applicationId: string) => Promise<void>> = [];

  constructor(
    private readonly db: Db,
    private readonly applications: ApplicationService,
    private readonly registry: DeploymentRegistry,
  ) {}

  /**
   * Called, and awaited, after a version starts or stops being served (the runtime moves the
   * application's schedules there). A listener handles its own errors: the change has committed.
   */
  onServedChange(listener: (applicationId: string) => Promise<void>): void {
    this.servedListeners.push(listener);
  }

  /** The answer carries who may do what and the advice (advisor/advice.ts); the job's metadata keeps the advice. */
  async publish(customerId: string, applicationId: string, serverVersion?: string): Promise<Application & AccessSummary> {
    const row = await this.applications.findRow(this.db.kysely, customerId, applicationId);
    const version = serverVersion ?? row.server_version;
    const definition = await this.versionScode(applicationId, version);
    // A conversion that would fail on stored rows is refused now (409), not by a failed job.
    await checkMigration(this.db, applicationId, definition);
    // Every variable and secret the version reads must be set (DESIGN §11).
    await checkConfigReferences(this.db, applicationId, definition);
    const summary = accessSummaryOfDefinition(applicationId, version, definition);
    await this.applications.submitJob(customerId, applicationId, 'deployment', { serverVersion: version, advice: summary.advice });
    return { ...(await this.applications.get(customerId, applicationId)), ...summary };
  }

  async unpublish(customerId: string, applicationId: string, serverVersion?: string): Promise<Application> {
    await this.db.kysely.transaction().execute(async (trx) => {
      await this.applications.findRow(trx, customerId, applicationId, true);
      let query = trx
        .updateTable('appbuilder.deployments')
        .set({ state: 'inactive', unpublished_at: new Date() })
        .where('application_id', '=', applicationId)
        .where('state', '=', 'active');
      if (serverVersion) query = query.where('server_version', '=', serverVersion);
      const result = await query.executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) {
        throw notFound(serverVersion ? `Version ${serverVersion} is not published.` : 'No version is published.', '/serverVersion');
      }
      const stillServed = await trx
        .selectFrom('appbuilder.deployments')
        .select('server_version')
        .where('application_id', '=', applicationId)
        .where('state', '=', 'active')
        .executeTakeFirst();
      await trx
        .updateTable('appbuilder.applications')
        .set({ is_active: stillServed !== undefined, last_unpublished_at: new Date() })
        .where('id', '=', applicationId)
        .execute();
      await notifyServedChange(trx, applicationId);
    });
    await this.servedChanged(applicationId);
    return this.applications.get(customerId, applicationId);
  }

  /** Drops the columns of removed fields that nothing uses any more, in one transaction (see `purge.ts`). */
  async purge(customerId: string, applicationId: string, fieldIds: string[]): Promise<Application> {
    await this.db.kysely.transaction().execute(async (trx) => {
      const row = await this.applications.findRow(trx, customerId, applicationId, true);
      await purgeFields(trx, applicationId, row.scode as unknown as AppDefinition, fieldIds);
    });
    return this.applications.get(customerId, applicationId);
  }

  /**
   * The `deployment` job: migrate (expand only) and start serving, atomically. Idempotent on
   * retry: the plan is made from what the committed schema is now, so an attempt that died
   * (its transaction rolled back with its connection) is simply done again, and one that
   * committed leaves nothing more to do. Until one commits, the previous version serves.
   */
  async runDeployment(job: JobRecord): Promise<Record<string, unknown>> {
    const applicationId = String(job.metadata.applicationId);
    const serverVersion = String(job.metadata.serverVersion);
    const definition = await this.versionScode(applicationId, serverVersion);
    const applied = await this.db.kysely.transaction().execute(async (trx) => {
      // A conversion of millions of rows may take minutes; the job's lease bounds it instead.
      await withoutStatementTimeout(trx);
      await trx.selectFrom('appbuilder.applications').select('id').where('id', '=', applicationId).forUpdate().executeTakeFirstOrThrow();
      const deployed = await trx.selectFrom('appbuilder.app_schemas').select('scode').where('application_id', '=', applicationId).executeTakeFirst();
      const plan = planMigration((deployed?.scode ?? null) as AppDefinition | null, definition, applicationId);
      // Throws 409 naming the failing step and its field; the transaction then changes nothing.
      const compiled = compileApp(applicationId, serverVersion, definition);
      // One batch: the migration, then the runtime's own tables and triggers.
      await runMigration(trx, plan, runtimeSchemaStatements(compiled));
      await trx
        .insertInto('appbuilder.app_schemas')
        .values({ application_id: applicationId, server_version: serverVersion, scode: jsonb(definition) })
        // The definition is sent once (`excluded`), not a second time for the update.
        .onConflict((oc) => oc.column('application_id').doUpdateSet({ server_version: serverVersion, scode: sql`excluded.scode`, updated_at: sql`now()` }))
        .execute();
      const lines = summarizeMigration(plan);
      if (plan.statements.length > 0) {
        await trx
          .insertInto('appbuilder.app_migrations')
          .values({ id: uuidv7(), application_id: applicationId, server_version: serverVersion, statements: jsonb(plan.statements), summary: jsonb(lines) })
          .execute();
      }
      await trx
        .insertInto('appbuilder.deployments')
        .values({ application_id: applicationId, server_version: serverVersion, state: 'active', published_at: new Date() })
        .onConflict((oc) => oc.columns(['application_id', 'server_version']).doUpdateSet({ state: 'active', published_at: new Date(), unpublished_at: null }))
        .execute();
      await trx.updateTable('appbuilder.applications').set({ is_active: true, last_published_at: new Date() }).where('id', '=', applicationId).execute();
      // Every process (this one too) forgets the app's served versions when this commits.
      await notifyServedChange(trx, applicationId);
      return { statements: plan.statements.length, compiled };
    });
    // The version is immutable: whoever loads it next in this process (the schedules' sync below,
    // the first request) takes this compiled app rather than reading and compiling it again.
    this.registry.remember(applied.compiled);
    await this.servedChanged(applicationId);
    // The statements' summary is listed once, in `status.migrations` (app_migrations); the job's
    // metadata only counts them.
    return { serverVersion, migrationStatements: applied.statements, advice: accessSummaryOf(applied.compiled).advice };
  }

  private async servedChanged(applicationId: string): Promise<void> {
    this.registry.invalidate(applicationId);
    for (const listener of this.servedListeners) await listener(applicationId);
  }

  private async versionScode(applicationId: string, serverVersion: string): Promise<AppDefinition> {
    const row = await this.db.kysely
      .selectFrom('appbuilder.application_versions')
      .select('scode')
      .where('application_id', '=', applicationId)
      .where('server_version', '=', serverVersion)
      .executeTakeFirst();
    if (!row) throw notFound(`Version ${serverVersion} does not exist.`, '/serverVersion');
    return row.scode as unknown as AppDefinition;
  }
}
