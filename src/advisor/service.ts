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
  /**
   * Per application: its customer and the version served last, as `latestServed` read them;
   * forgotten whenever the registry forgets the application (a deployment or unpublish, here or
   * in another process), so explain costs no query of its own for them.
   */
  readonly #latest = new Map<string, { customerId: string; version: string | null }>();

  constructor(
    private readonly db: Db,
    private readonly applications: ApplicationService,
    private readonly registry: DeploymentRegistry,
    private readonly masterKey: Buffer,
    private readonly appValues?: AppValuesSource,
  ) {
    registry.onInvalidate((applicationId) => this.#latest.delete(applicationId));
  }

  async explain(customerId: string, applicationId: string, input: ExplainInput): Promise<Explanation> {
    let version = input.version ?? (await this.latestServed(customerId, applicationId));
    let resolved = version ? await this.registry.resolve(applicationId, version) : null;
    // A version remembered but no longer served (a notice missed): asked again once.
    if (!resolved && !input.version && this.#latest.delete(applicationId)) {
      version = await this.latestServed(customerId, applicationId);
      resolved = version ? await this.registry.resolve(applicationId, version) : null;
    }
    // A version named in the body: its customer is checked here (the same 404 as for another's application).
    if (resolved && resolved.customerId !== customerId) throw notFound(`Application ${applicationId} was not found.`, '/applicationId');
    if (!resolved && input.version) await this.latestServed(customerId, applicationId);
    const served = resolved;
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

  /**
   * The customer's application (else 404) and its version served last, in one query: explain is
   * a request of its own, and a version asked for by name is checked against the customer when
   * it is resolved (its deployment names the customer).
   */
  private async latestServed(customerId: string, applicationId: string): Promise<string | null> {
    const known = this.#latest.get(applicationId);
    if (known?.customerId === customerId) return known.version;
    const row = await this.db.kysely
      .selectFrom('appbuilder.applications as a')
      .leftJoin('appbuilder.deployments as d', (join) => join.onRef('d.application_id', '=', 'a.id').on('d.state', '=', 'active'))
      .select(['d.server_version', 'a.customer_id'])
      .where('a.id', '=', applicationId)
      .where('a.customer_id', '=', customerId)
      .orderBy('d.published_at', (ob) => ob.desc().nullsLast())
      .limit(1)
      .executeTakeFirst();
    if (!row) throw notFound(`Application ${applicationId} was not found.`, '/applicationId');
    if (this.#latest.size >= 10_000) this.#latest.clear();
    this.#latest.set(applicationId, { customerId: row.customer_id, version: row.server_version ?? null });
    return row.server_version ?? null;
  }
}
