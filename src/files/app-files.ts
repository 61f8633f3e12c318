// Files of generated applications (DESIGN §6, "Files"): each upload is one of the owning
// customer's stored files (§12) at `apps/{applicationId}/{key}`, written by the one FileService
// (streamed, hashed, limited, sniffed), plus an `appbuilder.app_files` row tying the key to the
// application and its uploader in the same transaction. Records hold the key.
import type { Readable } from 'node:stream';
import { sql, type RawBuilder } from 'kysely';
import type { Db, Executor } from '../storage/db.ts';
import { uuidv7 } from '../tools/ids.ts';
import type { FileService } from './service.ts';
import type { FileRow } from './table.ts';

/** appbuilder.app_files (migration 012). */
export interface AppFilesTable {
  application_id: string;
  key: string;
  file_id: string;
  uploaded_by: string | null;
}

/** `{uuid}` or `{uuid}-{name}`: one path segment of URL-safe characters, so a URL is the route plus the key. */
export const APP_FILE_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?:-[A-Za-z0-9._-]{1,100})?$/;

/** The setting that bounds one upload to a generated app. */
export const APP_FILE_LIMIT_SETTING = 'APPBUILDER_APP_FILE_MAX_BYTES';

/** What `POST {app api}/files` answers besides the URL. */
export interface AppUpload {
  key: string;
  contentType: string;
  size: number;
}

export interface AppUploadSource {
  stream: Readable;
  contentType: string | undefined;
  /** The client's name for the file (a multipart part's filename), kept in the key made safe. */
  filename?: string;
  declaredLength?: number;
}

/** The part of a client's file name a key keeps: URL-safe characters, the end (with its extension) of a long one. */
export function keyName(filename: string | undefined): string {
  const base = (filename ?? '').slice((filename ?? '').lastIndexOf('/') + 1);
  const safe = base
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._-]+/, '')
    .slice(-100);
  return safe;
}

export function appFilePath(applicationId: string, key: string): string {
  return `apps/${applicationId}/${key}`;
}

const FILE_COLUMNS = sql.raw(
  'f.id, f.customer_id, f.builder_id, f.project_id, f.path, f.size, f.content_type, f.sha256, f.blob_key, f.created_at, f.updated_at',
);

export class AppFiles {
  constructor(
    private readonly db: Db,
    readonly files: FileService,
    /** APPBUILDER_APP_FILE_MAX_BYTES: the largest upload to a generated app. */
    readonly maxBytes: number,
  ) {}

  /**
   * Stores an upload in the customer's storage and ties its key to the application, both in the
   * one commit of the file's row: a refusal (413, quota) or a failure leaves neither.
   */
  async upload(target: { applicationId: string; customerId: string }, uploadedBy: string | null, source: AppUploadSource): Promise<AppUpload> {
    const name = keyName(source.filename);
    const key = name ? `${uuidv7()}-${name}` : uuidv7();
    // The file belongs to the application's project: builders limited to other projects do not reach it.
    const app = await this.db.kysely.selectFrom('appbuilder.applications').select('project_id').where('id', '=', target.applicationId).executeTakeFirst();
    const { file } = await this.files.upload(
      { customerId: target.customerId, builderId: null, seesAll: true, projectIds: null },
      {
        path: appFilePath(target.applicationId, key),
        contentType: source.contentType,
        overwrite: false,
        builderId: null,
        projectId: app?.project_id ?? null,
        ...(source.declaredLength !== undefined ? { declaredLength: source.declaredLength } : {}),
        fileLimit: { bytes: this.maxBytes, setting: APP_FILE_LIMIT_SETTING },
        inCommit: async (trx, row) => {
          await trx
            .withTables<{ 'appbuilder.app_files': AppFilesTable }>()
            .insertInto('appbuilder.app_files')
            .values({ application_id: target.applicationId, key, file_id: row.id, uploaded_by: uploadedBy })
            .execute();
        },
      },
      source.stream,
    );
    return { key, contentType: file.contentType, size: file.size };
  }

  /**
   * The file of `key` when `readable` holds, in one statement; `readable` may refer to the
   * app_files row as `app_file` (`app_file.key`, `app_file.uploaded_by`). Undefined: no such file, or not this caller's.
   */
  async readableRow(applicationId: string, key: string, readable: RawBuilder<unknown>): Promise<FileRow | undefined> {
    if (!APP_FILE_KEY.test(key)) return undefined;
    const result = await sql<FileRow>`select ${FILE_COLUMNS} from appbuilder.app_files app_file join appbuilder.files f on f.id = app_file.file_id
      where app_file.application_id = ${applicationId} and app_file.key = ${key} and (${readable})`.execute(this.db.kysely);
    return result.rows[0];
  }
}

/** Of `keys`, the ones that name no file uploaded to the application (one statement, in the write's transaction). */
export async function unknownAppFileKeys(executor: Executor, applicationId: string, keys: string[]): Promise<Set<string>> {
  const missing = new Set(keys);
  if (keys.length === 0) return missing;
  const result = await sql<{ key: string }>`select key from appbuilder.app_files
    where application_id = ${applicationId} and key = any(cast(${keys} as text[]))`.execute(executor);
  for (const row of result.rows) missing.delete(row.key);
  return missing;
}
