import type { Db } from '../storage/db.ts';
import type { AppDefinition } from '../definition/schema.ts';
import { buildIntegrationPrompts, type IntegrationPrompts } from '../prompts/index.ts';
import type { ApplicationService } from './applications/service.ts';

/** A served version: its serverVersion and definition. */
export interface PublishedVersion {
  serverVersion: string;
  scode: AppDefinition;
}

/**
 * The latest published version of an application: among the versions served now
 * (`deployments.state = 'active'`), the one published last (a rollback publishes an
 * older version, which then counts as the latest); null when nothing is served.
 */
export async function latestPublishedVersion(db: Db, applicationId: string): Promise<PublishedVersion | null> {
  const row = await db.kysely
    .selectFrom('appbuilder.deployments as d')
    .innerJoin('appbuilder.application_versions as v', (join) =>
      join.onRef('v.application_id', '=', 'd.application_id').onRef('v.server_version', '=', 'd.server_version'),
    )
    .select(['d.server_version', 'v.scode'])
    .where('d.application_id', '=', applicationId)
    .where('d.state', '=', 'active')
    .orderBy('d.published_at', 'desc')
    .orderBy('d.server_version', 'desc')
    .executeTakeFirst();
  return row ? { serverVersion: row.server_version, scode: row.scode as unknown as AppDefinition } : null;
}

/** The shared path form of an application under a public origin: `http://host/apps/{id}` (its own origin is `AppOrigins.of`). */
export function appUrlOf(origin: string, appsPath: string, applicationId: string): string {
  return `${origin.replace(/\/+$/, '')}${appsPath}/${applicationId}`;
}

/**
 * Integration prompts (spec endpoint 7): built from the latest published version
 * when one is served, else from the saved definition (and then they say so).
 */
export class IntegrationPromptService {
  constructor(
    private readonly db: Db,
    private readonly applications: ApplicationService,
  ) {}

  /** `appUrl`: the application's `{app_url}`, its own origin (tools/app-origin.ts). */
  async get(customerId: string, applicationId: string, appUrl: string): Promise<IntegrationPrompts> {
    const row = await this.applications.findRow(this.db.kysely, customerId, applicationId);
    const published = await latestPublishedVersion(this.db, applicationId);
    const serverVersion = published?.serverVersion ?? row.server_version;
    const definition = published?.scode ?? (row.scode as unknown as AppDefinition);
    const base = appUrl.replace(/\/+$/, '');
    return buildIntegrationPrompts({
      definition,
      applicationId,
      serverVersion,
      published: published !== null,
      appUrl: base,
      openApiUrl: `${base}/api/v${serverVersion}/openapi.json`,
      ...(row.name ? { appName: row.name } : {}),
    });
  }
}
