import type { Readable } from 'node:stream';
import { sql, type ExpressionBuilder, type ExpressionWrapper, type SqlBool, type Transaction } from 'kysely';
import type { Db } from '../storage/db.ts';
import { conflict, forbidden, notFound, Problem } from '../errors.ts';
import { uuidv7 } from '../tools/ids.ts';
import type { StorageConfig } from './config.ts';
import type { ByteRange, StorageDriver } from './drivers/driver.ts';
import { Meter, TooLarge } from './meter.ts';
import { checkPath, checkPrefix } from './paths.ts';
import { UrlSigner } from './signing.ts';
import { storedContentType } from './sniff.ts';
import { filesKysely, type FileRow, type FilesDb } from './table.ts';

/**
 * Whose files a caller reaches: a customer's, and a builder's own unless it may see all; a
 * builder limited to some projects only the files of those projects (attachments, their
 * applications' uploads, files stored for them) and the files it stored for no project.
 */
export interface FileScope {
  customerId: string;
  builderId: string | null;
  seesAll: boolean;
  /** The projects the caller may see; null: every project of the customer. */
  projectIds: string[] | null;
}

/** The first path segments only the attachment and application-upload code writes. */
export const RESERVED_PREFIXES = ['attachments', 'apps'] as const;

/** The reserved first segment `path` starts with, if any. */
export function reservedPrefixOf(path: string): string | undefined {
  const first = path.split('/', 1)[0];
  return RESERVED_PREFIXES.find((prefix) => prefix === first);
}

/** 403 naming the path when it is under a prefix the storage API may not write. */
export function refuseReserved(path: string, pointer = '/path'): void {
  const prefix = reservedPrefixOf(path);
  if (prefix === undefined) return;
  const message = `is under ${prefix}/, which only the ${prefix === 'apps' ? "applications' file uploads" : 'project attachments'} write`;
  throw new Problem(403, `The file path ${path} ${message}; the storage API cannot write or delete there.`, [{ path: pointer, message }]);
}

type FilesWhere = ExpressionBuilder<FilesDb, 'appbuilder.files'>;

/** The condition a file row must meet for `scope` to reach it (its customer is checked apart). */
function reach(scope: FileScope): (eb: FilesWhere) => ExpressionWrapper<FilesDb, 'appbuilder.files', SqlBool> {
  return (eb) => {
    const own = scope.builderId === null ? eb.val(false) : eb('builder_id', '=', scope.builderId);
    const byRole = scope.seesAll ? eb.val(true) : own;
    if (scope.projectIds === null) return byRole;
    const inProjects = scope.projectIds.length === 0 ? eb.val(false) : eb('project_id', 'in', scope.projectIds);
    return eb.or([eb.and([inProjects, byRole]), eb.and([eb('project_id', 'is', null), own])]);
  };
}

export interface StoredFile {
  id: string;
  path: string;
  size: number;
  contentType: string;
  sha256: string;
  builderId: string | null;
  /** The project the file belongs to (an attachment, an application's upload, or stored for it); null: none. */
  projectId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface UploadOptions {
  path: string;
  contentType: string | undefined;
  overwrite: boolean;
  /** The builder the file is tied to (a builder token: itself). */
  builderId: string | null;
  /** The project the file belongs to (checked to be the customer's); absent: none. */
  projectId?: string | null;
  /** Content-Length when the client sent one: refused at once when over a limit. */
  declaredLength?: number;
  /** A smaller per-file limit than APPBUILDER_STORAGE_MAX_FILE_BYTES, and the setting that sets it (a generated app's uploads). */
  fileLimit?: { bytes: number; setting: string };
  /** Runs in the transaction that commits the file's row (a row tied to it commits or vanishes with it). */
  inCommit?: (trx: Transaction<FilesDb>, row: FileRow) => Promise<void>;
}

const FILE_COLUMNS = ['id', 'customer_id', 'builder_id', 'project_id', 'path', 'size', 'content_type', 'sha256', 'blob_key', 'created_at', 'updated_at'] as const;

export function fileView(row: FileRow): StoredFile {
  return {
    id: row.id,
    path: row.path,
    size: Number(row.size),
    contentType: row.content_type,
    sha256: row.sha256,
    builderId: row.builder_id,
    projectId: row.project_id,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

/**
 * Feeds `source` into `meter` without tying their fates: when the meter fails (a limit), the
 * rest of the source is read and dropped, so the client still gets its 413; when the source
 * fails (the client went away), the meter fails and the driver drops what it wrote.
 */
function feed(source: Readable, meter: Meter): void {
  const gone = () => {
    if (!source.readableEnded) meter.destroy(new Error('The client went away during the upload.'));
  };
  source.once('error', gone);
  source.once('close', gone);
  meter.once('error', () => {
    source.unpipe(meter);
    source.resume();
  });
  source.pipe(meter);
}

/** Customers' files (DESIGN §12): rows here, bytes with the driver. */
export class FileService {
  readonly signer: UrlSigner;

  constructor(
    private readonly db: Db,
    readonly driver: StorageDriver,
    readonly config: StorageConfig,
    masterKey: Buffer,
  ) {
    this.signer = new UrlSigner(masterKey);
  }

  private get kysely() {
    return filesKysely(this.db);
  }

  /** Bytes the customer's files take, leaving out the file at `exceptPath` (which an overwrite replaces). */
  private async used(executor: ReturnType<typeof filesKysely>, customerId: string, exceptPath: string): Promise<number> {
    const row = await executor
      .selectFrom('appbuilder.files')
      .select(sql<number>`coalesce(sum(size), 0)::bigint`.as('used'))
      .where('customer_id', '=', customerId)
      .where('path', '<>', exceptPath)
      .executeTakeFirstOrThrow();
    return Number(row.used);
  }

  private tooLarge(limit: TooLarge, used: number, setting = 'APPBUILDER_STORAGE_MAX_FILE_BYTES'): Problem {
    if (limit.reason === 'file') {
      const message = `is larger than the limit of ${limit.limit} bytes per file (${setting})`;
      return new Problem(413, `The file ${message}.`, [{ path: '/', message }]);
    }
    const message = `would take the customer's files past the quota of ${this.config.quotaBytes} bytes (APPBUILDER_STORAGE_QUOTA_BYTES); ${used} bytes are in use`;
    return new Problem(413, `The file ${message}.`, [{ path: '/', message }]);
  }

  /** The file at the path, with whether `scope` reaches it. */
  private existing(executor: ReturnType<typeof filesKysely>, scope: FileScope, path: string, forUpdate: boolean) {
    let query = executor
      .selectFrom('appbuilder.files')
      .select((eb) => ['id', 'builder_id', 'blob_key', reach(scope)(eb).as('reachable')])
      .where('customer_id', '=', scope.customerId)
      .where('path', '=', path);
    if (forUpdate) query = query.forUpdate();
    return query.executeTakeFirst();
  }

  private refuseTaken(scope: FileScope, existing: { builder_id: string | null; reachable: SqlBool } | undefined, options: UploadOptions): void {
    if (!existing) return;
    if (!existing.reachable) {
      // Paths are unique per customer: the path is taken, but nothing of the file is told.
      throw conflict(`The path ${options.path} is taken by a file this caller cannot reach; choose another path.`, [{ path: '/path', message: 'is taken' }]);
    }
    if (!options.overwrite) throw conflict(`A file already exists at ${options.path}; send overwrite=true to replace it.`, [{ path: '/path', message: 'is taken' }]);
    if (!scope.seesAll && existing.builder_id !== scope.builderId) {
      throw conflict(`The file at ${options.path} belongs to another builder; only an admin may replace it.`, [{ path: '/path', message: 'is taken by another builder' }]);
    }
  }

  /**
   * Streams `source` to the driver (hashed, counted and limited on the way), then commits the
   * row. A refusal at any point leaves neither bytes nor row; an overwrite swaps the row to the
   * new bytes in one statement and removes the old ones after commit.
   */
  async upload(scope: FileScope, options: UploadOptions, source: Readable): Promise<{ file: StoredFile; replaced: boolean }> {
    checkPath(options.path);
    if (options.projectId) await this.checkProject(scope, options.projectId);
    const existing = await this.existing(this.kysely, scope, options.path, false);
    this.refuseTaken(scope, existing, options);
    const used = await this.used(this.kysely, scope.customerId, options.path);
    const left = Math.max(0, this.config.quotaBytes - used);
    const own = options.fileLimit && options.fileLimit.bytes < this.config.maxFileBytes ? options.fileLimit : null;
    const fileBytes = own ? own.bytes : this.config.maxFileBytes;
    const limit = fileBytes <= left ? new TooLarge(fileBytes, 'file') : new TooLarge(left, 'quota');
    const tooLarge = (error: TooLarge) => this.tooLarge(error, used, own?.setting);
    if (options.declaredLength !== undefined && options.declaredLength > limit.limit) throw tooLarge(limit);

    const blobKey = uuidv7();
    const meter = new Meter({ bytes: limit.limit, reason: limit.reason });
    feed(source, meter);
    try {
      await this.driver.put(blobKey, meter);
    } catch (error) {
      if (error instanceof TooLarge) throw tooLarge(error);
      throw error;
    }
    let committed: { row: FileRow; oldBlob: string | null };
    try {
      const contentType = await storedContentType(options.contentType, meter.head());
      committed = await this.commit(scope, options, { blobKey, size: meter.bytes, sha256: meter.digest(), contentType });
    } catch (error) {
      await this.driver.remove(blobKey).catch(() => {}); // else the sweeper takes it
      throw error;
    }
    if (committed.oldBlob) await this.driver.remove(committed.oldBlob).catch(() => {});
    return { file: fileView(committed.row), replaced: committed.oldBlob !== null };
  }

  private commit(
    scope: FileScope,
    options: UploadOptions,
    blob: { blobKey: string; size: number; sha256: string; contentType: string },
  ): Promise<{ row: FileRow; oldBlob: string | null }> {
    return this.kysely.transaction().execute(async (trx) => {
      // One upload of a customer commits at a time, so two cannot both fit the quota's last bytes.
      await trx.selectFrom('appbuilder.customers').select('id').where('id', '=', scope.customerId).forUpdate().executeTakeFirstOrThrow();
      const used = await this.used(trx, scope.customerId, options.path);
      if (used + blob.size > this.config.quotaBytes) throw this.tooLarge(new TooLarge(Math.max(0, this.config.quotaBytes - used), 'quota'), used);
      const existing = await this.existing(trx, scope, options.path, true);
      this.refuseTaken(scope, existing, options);
      const values = { size: blob.size, sha256: blob.sha256, content_type: blob.contentType, blob_key: blob.blobKey };
      if (existing) {
        const row = await trx
          .updateTable('appbuilder.files')
          .set({
            ...values,
            builder_id: options.builderId ?? existing.builder_id,
            ...(options.projectId !== undefined ? { project_id: options.projectId } : {}),
            updated_at: sql<Date>`now()`,
          })
          .where('id', '=', existing.id)
          .returning(FILE_COLUMNS)
          .executeTakeFirstOrThrow();
        return { row, oldBlob: existing.blob_key };
      }
      const row = await trx
        .insertInto('appbuilder.files')
        .values({ id: uuidv7(), customer_id: scope.customerId, builder_id: options.builderId, project_id: options.projectId ?? null, path: options.path, ...values })
        .returning(FILE_COLUMNS)
        .executeTakeFirstOrThrow();
      if (options.inCommit) await options.inCommit(trx, row);
      return { row, oldBlob: null };
    });
  }

  /** 404 unless the project is the customer's and within the caller's projects. */
  private async checkProject(scope: FileScope, projectId: string): Promise<void> {
    const row = await this.kysely
      .selectFrom('appbuilder.projects')
      .select('id')
      .where('id', '=', projectId)
      .where('customer_id', '=', scope.customerId)
      .executeTakeFirst();
    if (!row || (scope.projectIds !== null && !scope.projectIds.includes(projectId))) throw notFound(`Project ${projectId} was not found.`, '/projectId');
  }

  async list(
    scope: FileScope,
    query: { prefix?: string; builderId?: string; projectId?: string; limit: number; offset: number },
  ): Promise<{ items: StoredFile[]; total: number }> {
    const prefix = checkPrefix(query.prefix ?? '');
    let base = this.kysely.selectFrom('appbuilder.files').where('customer_id', '=', scope.customerId).where(reach(scope));
    if (query.builderId) base = base.where('builder_id', '=', query.builderId);
    if (query.projectId) base = base.where('project_id', '=', query.projectId);
    if (prefix) base = base.where(sql<boolean>`starts_with(path, ${prefix})`);
    const [rows, count] = await Promise.all([
      base.select(FILE_COLUMNS).orderBy('path').orderBy('id').limit(query.limit).offset(query.offset).execute(),
      base.select(sql<number>`count(*)::int`.as('total')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(fileView), total: Number(count.total) };
  }

  /** The file's row, or 404 when it is another customer's, another builder's (unless `seesAll`), outside the caller's projects, or absent. */
  async row(scope: FileScope, id: string): Promise<FileRow> {
    const row = await this.kysely
      .selectFrom('appbuilder.files')
      .select(FILE_COLUMNS)
      .where('id', '=', id)
      .where('customer_id', '=', scope.customerId)
      .where(reach(scope))
      .executeTakeFirst();
    if (!row) throw notFound(`No file ${id}.`, '/id');
    return row;
  }

  async remove(scope: FileScope, id: string): Promise<void> {
    await this.removeRow(await this.row(scope, id));
  }

  /** Deletes a file found with `row` (the caller checked it may). */
  async removeRow(row: FileRow): Promise<void> {
    const deleted = await this.kysely.deleteFrom('appbuilder.files').where('id', '=', row.id).returning('blob_key').executeTakeFirst();
    if (deleted) await this.driver.remove(deleted.blob_key).catch(() => {}); // else the sweeper takes it
  }

  /** The bytes of a file (or of `range`). */
  content(row: FileRow, range?: ByteRange): Promise<Readable> {
    return this.driver.get(row.blob_key, range);
  }

  /** A signed path (`{basePath}/storage/signed/{id}?…`) valid for `expiresIn` seconds. */
  async signedPath(scope: FileScope, id: string, expiresIn: number, basePath: string): Promise<{ path: string; expiresAt: string }> {
    const row = await this.row(scope, id);
    const expires = Math.floor(Date.now() / 1000) + expiresIn;
    const signature = this.signer.sign(row.id, row.sha256, expires);
    return { path: `${basePath}/storage/signed/${row.id}?expires=${expires}&signature=${signature}`, expiresAt: new Date(expires * 1000).toISOString() };
  }

  /** The file a signed URL names: 403 when expired or tampered with (or the bytes changed), 404 when gone. */
  async signedRow(id: string, expires: number, signature: string): Promise<FileRow> {
    if (!Number.isSafeInteger(expires) || expires * 1000 < Date.now()) throw forbidden('The signed URL has expired.');
    const row = await this.kysely.selectFrom('appbuilder.files').select(FILE_COLUMNS).where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound(`No file ${id}.`, '/id');
    if (!this.signer.verify(row.id, row.sha256, expires, signature)) throw forbidden('The signed URL is not valid (altered, or the file was replaced).');
    return row;
  }
}
