/**
 * Figma imports and code generation (DESIGN §14). An import reads a Figma file from the Figma
 * REST API (the token from a project secret, through the outbound guard) or from an uploaded
 * attachment, and keeps it with its image fills (figma/imports.ts); a `figma_code_generation`
 * job renders chosen frames (figma/render/) and keeps the zip (figma/package.ts) for download.
 */
import { sql } from 'kysely';
import type { Db } from '../storage/db.ts';
import { Problem, badRequest, conflict, notFound, unprocessable } from '../errors.ts';
import { uuidv7 } from '../tools/ids.ts';
import { jsonb } from '../storage/sql.ts';
import { actorJson } from '../access/actor-context.ts';
import type { JobRecord, JobStore } from '../jobs/store.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { FigmaClient, type FigmaImage } from '../figma/client.ts';
import { figmaKysely, openDocument, readFigmaFile, toFigmaImport, type FigmaImport, type ReadFile } from '../figma/imports.ts';
import { packageSite } from '../figma/package.ts';
import { renderFigmaSite, type FigmaAsset } from '../figma/render/index.ts';
import type { AttachmentService } from './attachments.ts';
import type { ConfigurationService } from './configuration.ts';
import type { Page } from './projects.ts';

export const FIGMA_JOB = 'figma_code_generation';

export type ImportSource = { fileKey: string; tokenSecret: string } | { attachmentId: string };
/** What a caller sends: one of the sources, checked by `sourceOf` once the project is known to be theirs. */
export interface ImportRequest {
  fileKey?: string;
  tokenSecret?: string;
  attachmentId?: string;
}

/** `fileKey` + `tokenSecret`, or `attachmentId`: 400 naming what is missing or too much. */
function sourceOf(body: ImportRequest): ImportSource {
  if (body.attachmentId !== undefined) {
    const extra = (['fileKey', 'tokenSecret'] as const).filter((name) => body[name] !== undefined);
    if (extra.length > 0) throw badRequest('Give either attachmentId, or fileKey and tokenSecret, not both.', extra.map((name) => ({ path: `/${name}`, message: 'not with attachmentId' })));
    return { attachmentId: body.attachmentId };
  }
  const missing = (['fileKey', 'tokenSecret'] as const).filter((name) => body[name] === undefined);
  if (missing.length > 0) throw badRequest('Give fileKey and tokenSecret, or attachmentId.', missing.map((name) => ({ path: `/${name}`, message: 'is required without attachmentId' })));
  return { fileKey: body.fileKey!, tokenSecret: body.tokenSecret! };
}



/** The columns of an import the API shows (never the document). */
const SHOWN = ['id', 'customer_id', 'project_id', 'file_key', 'attachment_id', 'name', 'version', 'last_modified', 'frames', 'created_at'] as const;

/** A finished job's site. */
export interface CodeResult {
  zip: Uint8Array;
  sha256: string;
  filename: string;
}

export class FigmaService {
  constructor(
    private readonly db: Db,
    private readonly attachments: AttachmentService,
    private readonly configuration: ConfigurationService,
    private readonly jobs: JobStore,
    private readonly queue: JobQueue,
  ) {}

  private get kysely() {
    return figmaKysely(this.db.kysely);
  }

  /** Reads the file (and, by file key, its images), then stores the import with them in one transaction. */
  async create(customerId: string, projectId: string, request: ImportRequest): Promise<FigmaImport> {
    // Another customer's project is a 404 whatever the body says.
    await this.attachments.checkProject(customerId, projectId);
    const source = sourceOf(request);
    let file: ReadFile;
    let images: FigmaImage[] = [];
    let fileKey: string | null = null;
    let attachmentId: string | null = null;
    let fallbackName: string;
    if ('attachmentId' in source) {
      attachmentId = source.attachmentId;
      const { found } = await this.attachments.find(customerId, projectId, [attachmentId]);
      if (found.length === 0) {
        throw unprocessable(`No attachment ${attachmentId} in project ${projectId}.`, [{ path: '/attachmentId', message: 'is not an attachment of this project' }]);
      }
      fallbackName = found[0].name;
      file = readFigmaFile(await this.attachments.bytes(customerId, attachmentId), '/attachmentId');
    } else {
      fileKey = source.fileKey;
      fallbackName = fileKey;
      const client = new FigmaClient(await this.token(customerId, projectId, source.tokenSecret));
      file = readFigmaFile(await client.file(fileKey), '/fileKey');
      // Images are an extra: when Figma will not list them, their fills render as placeholders.
      const urls = await client.imageUrls(fileKey).catch(() => new Map<string, string>());
      images = await client.images(urls);
    }
    const id = uuidv7();
    const row = await this.db.kysely.transaction().execute(async (trx) => {
      const db = figmaKysely(trx);
      const inserted = await db
        .insertInto('appbuilder.figma_imports')
        .values({
          id,
          customer_id: customerId,
          project_id: projectId,
          file_key: fileKey,
          attachment_id: attachmentId,
          name: file.name ?? fallbackName,
          version: file.version,
          last_modified: file.lastModified,
          frames: jsonb(file.frames),
          document: file.gzipped,
          document_bytes: file.bytes,
          created_by: actorJson(),
        })
        .returning(SHOWN)
        .executeTakeFirstOrThrow();
      // One row at a time: each image may be megabytes, and one statement would hold them all.
      for (const image of images) {
        await db.insertInto('appbuilder.figma_import_images').values({ import_id: id, image_ref: image.imageRef, content_type: image.contentType, data: image.bytes }).execute();
      }
      return inserted;
    });
    return toFigmaImport(row);
  }

  /** The token from the project's secret `name`; 422 naming `/tokenSecret` when the project has none. */
  private async token(customerId: string, projectId: string, name: string): Promise<string> {
    try {
      return await this.configuration.secretValue(customerId, { kind: 'project', id: projectId }, name);
    } catch (error) {
      if (error instanceof Problem && error.status === 404) {
        throw unprocessable(`The project has no secret ${name} to read the Figma token from.`, [{ path: '/tokenSecret', message: `no project secret ${name}` }]);
      }
      throw error;
    }
  }

  async list(customerId: string, projectId: string, limit: number, offset: number): Promise<Page<FigmaImport>> {
    await this.attachments.checkProject(customerId, projectId);
    const base = this.kysely.selectFrom('appbuilder.figma_imports').where('project_id', '=', projectId).where('customer_id', '=', customerId);
    const [rows, count] = await Promise.all([
      base.select(SHOWN).orderBy('id').limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(toFigmaImport), total: Number(count.total) };
  }

  async get(customerId: string, projectId: string, id: string): Promise<FigmaImport> {
    await this.attachments.checkProject(customerId, projectId);
    const row = await this.kysely
      .selectFrom('appbuilder.figma_imports')
      .select(SHOWN)
      .where('id', '=', id)
      .where('project_id', '=', projectId)
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    if (!row) throw notFound(`Figma import ${id} was not found.`, '/importId');
    return toFigmaImport(row);
  }

  /** Deletes the import with its images and generated zips (on delete cascade). */
  async delete(customerId: string, projectId: string, id: string): Promise<void> {
    await this.get(customerId, projectId, id);
    await this.kysely.deleteFrom('appbuilder.figma_imports').where('id', '=', id).execute();
  }

  /**
   * Queues a `figma_code_generation` job for the frames (all by default; unknown ids → 422 naming
   * them), under the application when one is named (it then shows in the application's status).
   */
  async requestCode(customerId: string, projectId: string, importId: string, input: { frameIds?: string[]; applicationId?: string }): Promise<{ jobId: string }> {
    const figmaImport = await this.get(customerId, projectId, importId);
    if (input.frameIds) {
      const known = new Set(figmaImport.frames.map((f) => f.nodeId));
      const unknown = input.frameIds.flatMap((id, index) => (known.has(id) ? [] : [{ id, index }]));
      if (unknown.length > 0) {
        throw unprocessable(
          `Unknown frame ids: ${unknown.map((u) => u.id).join(', ')}; the import's frames are listed in its frames member.`,
          unknown.map((u) => ({ path: `/frameIds/${u.index}`, message: `no top-level frame ${u.id} in this import` })),
        );
      }
    }
    if (input.applicationId) {
      const app = await this.db.kysely
        .selectFrom('appbuilder.applications')
        .select('id')
        .where('id', '=', input.applicationId)
        .where('project_id', '=', projectId)
        .where('customer_id', '=', customerId)
        .executeTakeFirst();
      if (!app) throw notFound(`Application ${input.applicationId} was not found in project ${projectId}.`, '/applicationId');
    }
    const metadata = { importId, ...(input.frameIds ? { frameIds: input.frameIds } : {}), ...(input.applicationId ? { applicationId: input.applicationId } : {}) };
    const job = await this.db.kysely.transaction().execute((trx) =>
      this.jobs.create({ customerId, projectId, applicationId: input.applicationId ?? null, jobType: FIGMA_JOB, metadata }, trx),
    );
    await this.queue.enqueue(job);
    return { jobId: job.id };
  }

  /** The zip of a finished job; 409 while it is queued or running, 422 with its error when it failed. */
  async codeResult(customerId: string, projectId: string, importId: string, jobId: string): Promise<CodeResult> {
    const figmaImport = await this.get(customerId, projectId, importId);
    const job = await this.db.kysely
      .selectFrom('appbuilder.jobs')
      .select(['status', 'error_message'])
      .where('id', '=', jobId)
      .where('customer_id', '=', customerId)
      .where('project_id', '=', projectId)
      .where('job_type', '=', FIGMA_JOB)
      .where(sql<string>`metadata->>'importId'`, '=', importId)
      .executeTakeFirst();
    if (!job) throw notFound(`No code generation job ${jobId} for this import.`, '/jobId');
    if (job.status === 'queued' || job.status === 'running') throw conflict(`The code generation job is ${job.status}; the zip is ready when it has succeeded.`, [{ path: '/jobId', message: `is ${job.status}` }]);
    if (job.status !== 'succeeded') {
      const message = job.error_message ?? `The job was ${job.status}.`;
      throw unprocessable(`The code generation failed: ${message}`, [{ path: '/jobId', message }]);
    }
    const result = await this.kysely.selectFrom('appbuilder.figma_code_results').select(['zip', 'sha256']).where('job_id', '=', jobId).where('import_id', '=', importId).executeTakeFirst();
    if (!result) throw notFound(`The code generation job ${jobId} left no zip.`, '/jobId');
    return { zip: result.zip, sha256: result.sha256, filename: `${slug(figmaImport.name)}.zip` };
  }

  /** The job handler: renders the frames from the stored file and images, zips and keeps the site. */
  async run(job: JobRecord): Promise<Record<string, unknown>> {
    const importId = String(job.metadata.importId ?? '');
    const row = await this.kysely.selectFrom('appbuilder.figma_imports').select(['id', 'document']).where('id', '=', importId).executeTakeFirst();
    if (!row) throw new Error(`The Figma import ${importId} was deleted before its code was generated.`);
    const imageRows = await this.kysely.selectFrom('appbuilder.figma_import_images').select(['image_ref', 'content_type', 'data']).where('import_id', '=', importId).execute();
    const images = new Map<string, FigmaAsset>(imageRows.map((image) => [image.image_ref, { bytes: image.data, contentType: image.content_type }]));
    const frameIds = Array.isArray(job.metadata.frameIds) ? (job.metadata.frameIds as string[]) : undefined;
    const files = renderFigmaSite({ document: openDocument(row.document), ...(frameIds ? { frameIds } : {}), images });
    const site = packageSite(files);
    await this.kysely
      .insertInto('appbuilder.figma_code_results')
      .values({ job_id: job.id, import_id: importId, zip: site.zip, size_bytes: site.zip.byteLength, sha256: site.sha256, file_count: site.fileCount })
      .onConflict((oc) => oc.column('job_id').doUpdateSet({ zip: site.zip, size_bytes: site.zip.byteLength, sha256: site.sha256, file_count: site.fileCount }))
      .execute();
    return { files: site.fileCount, sizeBytes: site.zip.byteLength };
  }
}

const slug = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80) || 'figma';
