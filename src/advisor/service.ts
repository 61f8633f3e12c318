// The advisor's service: explain a request, the access matrix and the advice of a version, for
// the management API (an application of the caller's customer, else 404).
import { notFound } from '../errors.ts';
import type { Db } from '../storage/db.ts';
import type { AppDefinition } from '../definition/schema.ts';
import { NO_VALUES, type AppValuesSource } from '../secrets/app-values.ts';
import { compileApp, type CompiledApp } from '../runtime/compiled-app.ts';
import type { DeploymentRegistry } from '../runtime/registry.ts';
import type { ApplicationService } from '../services/applications/service.ts';
import { accessMatrix, type AccessMatrix } from './access-matrix.ts';
import { accessSummaryOf, type AccessSummary } from './summary.ts';
import { adviceFor, type Advice } from './advice.ts';
import { explainRequest, type ExplainInput, type Explanation } from './explain.ts';

export interface AccessAnswer extends AccessMatrix {
  advice: Advice[];
}

export class AdvisorService {
  constructor(
    private readonly db: Db,
    private readonly applications: ApplicationService,
    private readonly registry: DeploymentRegistry,
    private readonly masterKey: Buffer,
    private readonly appValues?: AppValuesSource,
  ) {}

  async explain(customerId: string, applicationId: string, input: ExplainInput): Promise<Explanation> {
    await this.applications.findRow(this.db.kysely, customerId, applicationId);
    const version = input.version ?? (await this.latestServed(applicationId));
    const served = version ? await this.registry.resolve(applicationId, version) : null;
    if (!served) throw notFound(version ? `Version ${version} is not published: explain runs a published version.` : 'No version is published: publish one to explain requests to it.', '/version');
    const values = this.appValues ? await this.appValues.forApplication(applicationId) : NO_VALUES;
    return explainRequest({ db: this.db, masterKey: this.masterKey }, served, values, input);
  }

  async access(customerId: string, applicationId: string, version?: string): Promise<AccessAnswer> {
    const app = await this.compiled(customerId, applicationId, version);
    const matrix = accessMatrix(app);
    return { ...matrix, advice: adviceFor(app, matrix) };
  }

  /** The advice and summary of a version (publish answers it; the deployment job's metadata keeps it). */
  async summary(customerId: string, applicationId: string, version?: string): Promise<AccessSummary> {
    return accessSummaryOf(await this.compiled(customerId, applicationId, version));
  }

  private async compiled(customerId: string, applicationId: string, version?: string): Promise<CompiledApp> {
    const row = await this.applications.findRow(this.db.kysely, customerId, applicationId);
    const serverVersion = version ?? row.server_version;
    const stored = await this.db.kysely
      .selectFrom('appbuilder.application_versions')
      .select('scode')
      .where('application_id', '=', applicationId)
      .where('server_version', '=', serverVersion)
      .executeTakeFirst();
    if (!stored) throw notFound(`Version ${serverVersion} does not exist.`, '/version');
    return compileApp(applicationId, serverVersion, stored.scode as unknown as AppDefinition);
  }

  /** The version served last. */
  private async latestServed(applicationId: string): Promise<string | null> {
    const row = await this.db.kysely
      .selectFrom('appbuilder.deployments')
      .select('server_version')
      .where('application_id', '=', applicationId)
      .where('state', '=', 'active')
      .orderBy('published_at', 'desc')
      .executeTakeFirst();
    return row?.server_version ?? null;
  }
}
