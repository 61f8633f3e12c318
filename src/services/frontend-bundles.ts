import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { sql, type Generated } from 'kysely';
import type { Db } from '../storage/db.ts';
import { Problem, notFound } from '../errors.ts';
import type { AppDefinition } from '../definition/schema.ts';
import { toJobRecord, type JobRecord } from '../jobs/store.ts';
import { bundleFiles, type BundleFile } from '../frontend/bundle.ts';
import { zipFiles } from '../frontend/zip.ts';
import { compileApp } from '../runtime/compiled-app.ts';
import { versionClient } from '../runtime/docs/typescript-client.ts';
import type { ApplicationService } from './applications/service.ts';
import { latestPublishedVersion } from './integration-prompts.ts';

/** The tables of migration 003, as Kysely sees them. */
type FrontendBundleTables = {
  'appbuilder.frontend_bundles': {
    application_id: string;
    server_version: string;
    job_id: string | null;
    size_bytes: number;
    sha256: string;
    chunk_count: number;
    file_count: number;
    created_at: Generated<Date>;
  };
  'appbuilder.frontend_bundle_chunks': {
    application_id: string;
    server_version: string;
    seq: number;
    data: Uint8Array;
  };
};

/** A complete stored bundle. */
export interface StoredBundle {
  applicationId: string;
  serverVersion: string;
  sizeBytes: number;
  sha256: string;
  chunkCount: number;
  /** `<app>-<serverVersion>.zip`. */
  filename: string;
}

export type BundleRequest =
  | { state: 'ready'; bundle: StoredBundle }
  | { state: 'pending'; serverVersion: string; job: JobRecord };

export interface FrontendBundleOptions {
  /** Stored chunk size (default 256 KiB): the most a download holds in memory. */
  chunkBytes?: number;
  /** `{app_url}` used when a job carries none (no request to take the host from). */
  defaultAppUrl(applicationId: string): string;
}

const ACTIVE = ['queued', 'running'];

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '') || 'app';

/**
 * Frontend bundles (spec endpoint 8): a `frontend_bundle` job per published version
 * builds the static app with the version's typed client (`client.ts`, the file
 * `GET {app api}/client.ts` answers), zips it file by file with fflate's streaming zip
 * and stores it in chunks,
 * once per (application, serverVersion). Downloads stream those chunks one query at a
 * time, so memory does not grow with the bundle.
 */
export class FrontendBundleService {
  private readonly chunkBytes: number;

  constructor(
    private readonly db: Db,
    private readonly applications: ApplicationService,
    private readonly options: FrontendBundleOptions,
  ) {
    this.chunkBytes = options.chunkBytes ?? 256 * 1024;
  }

  private get kysely() {
    return this.db.kysely.withTables<FrontendBundleTables>();
  }

  /**
   * The bundle of the latest published version: stored already, or a job queued (or
   * found queued) to build it. 404 when nothing is published.
   */
  async request(customerId: string, applicationId: string, appUrl: string): Promise<BundleRequest> {
    const row = await this.applications.findRow(this.db.kysely, customerId, applicationId);
    const published = await latestPublishedVersion(this.db, applicationId);
    if (!published) throw notFound('No version of this application is published; publish one to get its frontend bundle.');
    const name = row.name ?? published.scode.appOverview?.name ?? published.scode.appId;
    const bundle = await this.find(applicationId, published.serverVersion, name);
    if (bundle) return { state: 'ready', bundle };
    const job =
      (await this.activeJob(applicationId, published.serverVersion)) ??
      (await this.applications.submitJob(customerId, applicationId, 'frontend_bundle', { serverVersion: published.serverVersion, appUrl, name }));
    return { state: 'pending', serverVersion: published.serverVersion, job };
  }

  /**
   * Waits (polling) until the job's bundle is stored, up to `timeoutMs`. Returns the
   * bundle, or null on timeout; a failed job is a 500 problem carrying its error.
   */
  async waitFor(pending: Extract<BundleRequest, { state: 'pending' }>, timeoutMs: number, pollMs = 200): Promise<StoredBundle | null> {
    const applicationId = String(pending.job.metadata.applicationId);
    const name = String(pending.job.metadata.name ?? 'app');
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const bundle = await this.find(applicationId, pending.serverVersion, name);
      if (bundle) return bundle;
      const job = await this.db.kysely.selectFrom('appbuilder.jobs').select(['status', 'error_message']).where('id', '=', pending.job.id).executeTakeFirst();
      if (job && (job.status === 'failed' || job.status === 'cancelled')) {
        throw new Problem(500, `Building the frontend bundle of version ${pending.serverVersion} failed: ${job.error_message ?? job.status}. Retry to queue it again.`);
      }
      if (Date.now() >= deadline) return null;
      await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, Math.max(0, deadline - Date.now()))));
    }
  }

  async find(applicationId: string, serverVersion: string, name: string): Promise<StoredBundle | null> {
    const row = await this.kysely
      .selectFrom('appbuilder.frontend_bundles')
      .select(['size_bytes', 'sha256', 'chunk_count'])
      .where('application_id', '=', applicationId)
      .where('server_version', '=', serverVersion)
      .executeTakeFirst();
    if (!row) return null;
    return {
      applicationId,
      serverVersion,
      sizeBytes: Number(row.size_bytes),
      sha256: row.sha256,
      chunkCount: Number(row.chunk_count),
      filename: `${slug(name)}-${serverVersion}.zip`,
    };
  }

  /** The stored zip as a stream: one chunk read per pull. */
  open(bundle: StoredBundle): Readable {
    const kysely = this.kysely;
    async function* chunks(): AsyncGenerator<Buffer> {
      for (let seq = 0; seq < bundle.chunkCount; seq++) {
        const chunk = await kysely
          .selectFrom('appbuilder.frontend_bundle_chunks')
          .select('data')
          .where('application_id', '=', bundle.applicationId)
          .where('server_version', '=', bundle.serverVersion)
          .where('seq', '=', seq)
          .executeTakeFirst();
        if (!chunk) throw new Error(`Chunk ${seq} of the bundle ${bundle.applicationId}@${bundle.serverVersion} is missing.`);
        yield Buffer.from(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength);
      }
    }
    return Readable.from(chunks(), { objectMode: false, highWaterMark: 1 });
  }

  /** The `frontend_bundle` job handler: build, zip and store, unless already stored. */
  async runJob(job: JobRecord): Promise<Record<string, unknown>> {
    const applicationId = String(job.metadata.applicationId);
    const serverVersion = String(job.metadata.serverVersion);
    const appUrl = typeof job.metadata.appUrl === 'string' ? job.metadata.appUrl : this.options.defaultAppUrl(applicationId);
    // A version's definition never changes: read it, and generate its typed client (slow the
    // first time: the generator loads), before taking the application's lock.
    const version = await this.kysely
      .selectFrom('appbuilder.application_versions')
      .select('scode')
      .where('application_id', '=', applicationId)
      .where('server_version', '=', serverVersion)
      .executeTakeFirst();
    if (!version) throw notFound(`Version ${serverVersion} does not exist.`, '/serverVersion');
    const definition = version.scode as unknown as AppDefinition;
    const client = await versionClient(compileApp(applicationId, serverVersion, definition));
    return this.kysely.transaction().execute(async (trx) => {
      // One build per application at a time: a concurrent job waits, then finds the bundle.
      await trx.selectFrom('appbuilder.applications').select('id').where('id', '=', applicationId).forUpdate().executeTakeFirstOrThrow();
      const existing = await trx
        .selectFrom('appbuilder.frontend_bundles')
        .select(['size_bytes', 'job_id'])
        .where('application_id', '=', applicationId)
        .where('server_version', '=', serverVersion)
        .executeTakeFirst();
      if (existing) return { serverVersion, cached: true, sizeBytes: Number(existing.size_bytes) };
      const paths: string[] = [];
      // Made one at a time as the zip asks for them (the bundle is never whole in memory).
      function* files(): Generator<BundleFile> {
        for (const file of bundleFiles({
          definition,
          serverVersion,
          apiBaseUrl: `${appUrl.replace(/\/+$/, '')}/api/v${serverVersion}`,
          client,
          // The stored application name (the title of the pages), when it has one.
          ...(typeof job.metadata.name === 'string' ? { appName: job.metadata.name } : {}),
        })) {
          paths.push(file.path);
          yield file;
        }
      }

      await trx.deleteFrom('appbuilder.frontend_bundle_chunks').where('application_id', '=', applicationId).where('server_version', '=', serverVersion).execute();
      const hash = createHash('sha256');
      let pending: Uint8Array[] = [];
      let pendingBytes = 0;
      let seq = 0;
      let size = 0;
      const flush = async () => {
        if (pendingBytes === 0) return;
        const data = Buffer.concat(pending, pendingBytes);
        pending = [];
        pendingBytes = 0;
        await trx.insertInto('appbuilder.frontend_bundle_chunks').values({ application_id: applicationId, server_version: serverVersion, seq: seq++, data }).execute();
      };
      await zipFiles(files(), async (chunk) => {
        hash.update(chunk);
        size += chunk.byteLength;
        pending.push(chunk);
        pendingBytes += chunk.byteLength;
        if (pendingBytes >= this.chunkBytes) await flush();
      });
      await flush();
      const sha256 = hash.digest('hex');
      await trx
        .insertInto('appbuilder.frontend_bundles')
        .values({ application_id: applicationId, server_version: serverVersion, job_id: job.id, size_bytes: size, sha256, chunk_count: seq, file_count: paths.length })
        .execute();
      return { serverVersion, cached: false, sizeBytes: size, sha256, files: paths };
    });
  }

  /** A job for this version that is queued or running, if any (so requests do not pile up jobs). */
  private async activeJob(applicationId: string, serverVersion: string): Promise<JobRecord | undefined> {
    const row = await this.db.kysely
      .selectFrom('appbuilder.jobs')
      .selectAll()
      .where('application_id', '=', applicationId)
      .where('job_type', '=', 'frontend_bundle')
      .where('status', 'in', ACTIVE)
      .where(sql<string>`metadata->>'serverVersion'`, '=', serverVersion)
      .orderBy('id', 'desc')
      .executeTakeFirst();
    return row ? toJobRecord(row) : undefined;
  }
}
