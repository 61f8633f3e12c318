/**
 * Steps shared by the deployment tests over the real server: publish a version and
 * wait for its `deployment` job, and address the served version.
 */
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { schemaNameForApp, tableNameForModel } from '../../src/definition/naming.ts';
import { startPlatform, type PlatformOptions, type Role } from '../../src/platform.ts';
import type { TestDatabase } from '../support/databases.ts';
import { BOOTSTRAP, GENEROUS_APP_LIMITS, type TestPlatform } from '../support/platform.ts';
import type { Tenant } from '../support/tenant.ts';

export interface JobSummary {
  id: string;
  jobType: string;
  status: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The columns of a model's table in an application's data schema, with their SQL types. */
export async function tableColumns(t: TestPlatform, applicationId: string, modelId: string): Promise<Map<string, string>> {
  const result = await sql<{ column_name: string; data_type: string }>`
    select column_name, data_type from information_schema.columns
    where table_schema = ${schemaNameForApp(applicationId)} and table_name = ${tableNameForModel(modelId)}`.execute(t.database.db.kysely);
  return new Map(result.rows.map((r) => [r.column_name, r.data_type]));
}

/** `{appsPath}/{applicationId}/api/v{serverVersion}`. */
export const versionPath = (t: TestPlatform, applicationId: string, serverVersion: string): string =>
  `${t.config.appsPath}/${applicationId}/api/v${serverVersion}`;

/** Polls spec endpoint 6 until the job has settled; returns its summary. */
export async function waitForJob(tenant: Tenant, applicationId: string, jobId: string, timeoutMs = 60_000): Promise<JobSummary> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await tenant.api.get<{ jobs: JobSummary[] }>(`/v1/applications/${applicationId}/status`);
    const job = reply.body.jobs?.find((j) => j.id === jobId);
    if (job && ['succeeded', 'failed', 'cancelled'].includes(job.status)) return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} has not settled after ${timeoutMs} ms: ${reply.text}`);
    await sleep(100);
  }
}

/** Publishes `serverVersion` (default: the current one) and waits for its deployment job to succeed. */
export { publish as publishAndWait } from '../support/publish.ts';

/**
 * A platform of one `role` over an existing test database (several processes' worth of
 * platforms may share one PostgreSQL database); `close` leaves the database alone.
 */
export async function startOn(database: TestDatabase, role: Role, queue: PlatformOptions['queue'] = {}): Promise<TestPlatform> {
  const config = loadConfig({ ...process.env, APPBUILDER_TOKEN_RATE_LIMIT: '1000', ...GENEROUS_APP_LIMITS }, { bootstrapClient: BOOTSTRAP, port: 0, host: '127.0.0.1' });
  const platform = await startPlatform(config, { db: database.db, role, queue });
  const baseUrl = await platform.server.listen({ port: 0, host: '127.0.0.1' });
  return { platform, database, baseUrl, config, close: () => platform.close() };
}
