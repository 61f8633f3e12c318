/**
 * Attachments (DESIGN §13): a project's uploaded documents. The bytes are a customer file of
 * the storage layer (§12) at `attachments/{projectId}/{attachmentId}`, committed in the same
 * transaction as the attachment's row; the kind is read from the head of the content as it
 * streams in.
 */
import { Transform, type Readable } from 'node:stream';
import type { Kysely, Selectable } from 'kysely';
import type { Db } from '../storage/db.ts';
import type { ControlPlane } from '../storage/tables.ts';
import { badRequest, notFound } from '../errors.ts';
import { uuidv7 } from '../tools/ids.ts';
import { toIso } from '../storage/sql.ts';
import { actorJson } from '../access/actor-context.ts';
import type { Actor } from '../access/roles.ts';
import type { FileScope, FileService } from '../files/service.ts';
import type { FileRow } from '../files/table.ts';
import { detectKind, KIND_HEAD_BYTES } from '../specifications/kind.ts';
import type { AttachmentKind } from '../specifications/extractors/types.ts';
import { specificationsKysely, type AttachmentsTable } from '../specifications/tables.ts';
import type { Page } from './projects.ts';

/** At most 25 MiB per attachment (DESIGN §13). */
export const ATTACHMENT_MAX_BYTES = 25 * 1024 * 1024;
const MAX_NAME = 255;

export interface Attachment {
  id: string;
  projectId: string;
  name: string;
  contentType: string;
  size: number;
  sha256: string;
  kind: AttachmentKind;
  createdAt: string;
  createdBy: Actor | null;
}

export interface AttachmentUpload {
  name: string;
  contentType: string | undefined;
  declaredLength?: number;
}

function toAttachment(row: Selectable<AttachmentsTable>): Attachment {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    contentType: row.content_type,
    size: Number(row.size),
    sha256: row.sha256,
    kind: row.kind as AttachmentKind,
    createdAt: toIso(row.created_at)!,
    createdBy: row.created_by,
  };
}

/** Why `name` cannot name an attachment, or null. */
export function checkAttachmentName(name: string, pointer = '/name'): string {
  const trimmed = name.trim();
  let trouble: string | null = null;
  if (trimmed.length === 0 || trimmed.length > MAX_NAME) trouble = `must be 1 to ${MAX_NAME} characters long`;
  else if (/[\u0000-\u001f\u007f]/.test(trimmed)) trouble = 'must not contain control characters';
  if (trouble) throw badRequest(`The attachment name ${trouble}.`, [{ path: pointer, message: trouble }]);
  return trimmed;
}

/** Deletes the attachments of a project in the caller's transaction (their files' rows; the bytes go with the storage sweeper). */
export async function dropProjectAttachments(trx: Kysely<ControlPlane>, projectId: string): Promise<void> {
  const db = specificationsKysely(trx);
  await db
    .deleteFrom('appbuilder.files')
    .where('id', 'in', db.selectFrom('appbuilder.attachments').select('file_id').where('project_id', '=', projectId))
    .execute();
}

export class AttachmentService {
  constructor(
    private readonly db: Db,
    private readonly files: FileService,
  ) {}

  private get kysely() {
    return specificationsKysely(this.db.kysely);
  }

  private fileScope(customerId: string): FileScope {
    // Attachments belong to the project, not to the builder who uploaded them.
    return { customerId, builderId: null, seesAll: true, projectIds: null };
  }

  /** 404 unless the project is the customer's. */
  async checkProject(customerId: string, projectId: string): Promise<void> {
    const row = await this.db.kysely.selectFrom('appbuilder.projects').select('id').where('id', '=', projectId).where('customer_id', '=', customerId).executeTakeFirst();
    if (!row) throw notFound(`Project ${projectId} was not found.`, '/projectId');
  }

  /**
   * Streams the upload into the storage layer (at most 25 MiB: 413; hashed and counted on the
   * way) keeping only its head for kind detection, and commits the attachment's row with the
   * file's. Memory does not grow with the upload.
   */
  async upload(customerId: string, projectId: string, input: AttachmentUpload, source: Readable): Promise<Attachment> {
    await this.checkProject(customerId, projectId);
    const name = checkAttachmentName(input.name);
    const id = uuidv7();
    const head: Buffer[] = [];
    let kept = 0;
    // Copies the first bytes of the chunks on their way to the storage layer (a transform:
    // nothing flows before it is read); the chunks themselves are not held.
    const keep = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        if (kept < KIND_HEAD_BYTES) {
          const part = Buffer.from(chunk.subarray(0, KIND_HEAD_BYTES - kept));
          head.push(part);
          kept += part.length;
        }
        callback(null, chunk);
      },
    });
    source.once('error', (error) => keep.destroy(error));
    source.pipe(keep);
    let attachment: Attachment | undefined;
    await this.files.upload(
      this.fileScope(customerId),
      {
        path: `attachments/${projectId}/${id}`,
        contentType: input.contentType,
        overwrite: false,
        builderId: null,
        projectId,
        ...(input.declaredLength !== undefined ? { declaredLength: input.declaredLength } : {}),
        fileLimit: { bytes: ATTACHMENT_MAX_BYTES, setting: 'attachments are at most 25 MiB' },
        inCommit: async (trx, file) => {
          const kind = await detectKind(Buffer.concat(head), name, file.content_type, Number(file.size));
          const row = await specificationsKysely(trx)
            .insertInto('appbuilder.attachments')
            .values({
              id,
              customer_id: customerId,
              project_id: projectId,
              file_id: file.id,
              name,
              content_type: file.content_type,
              size: Number(file.size),
              sha256: file.sha256,
              kind,
              created_by: actorJson(),
            })
            .returningAll()
            .executeTakeFirstOrThrow();
          attachment = toAttachment(row);
        },
      },
      keep,
    );
    if (!attachment) throw new Error('The attachment row was not written with its file.');
    return attachment;
  }

  async list(customerId: string, projectId: string, limit: number, offset: number): Promise<Page<Attachment>> {
    await this.checkProject(customerId, projectId);
    const base = this.kysely.selectFrom('appbuilder.attachments').where('project_id', '=', projectId).where('customer_id', '=', customerId);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('id').limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(toAttachment), total: Number(count.total) };
  }

  private async row(customerId: string, projectId: string, id: string): Promise<Selectable<AttachmentsTable>> {
    await this.checkProject(customerId, projectId);
    const row = await this.kysely
      .selectFrom('appbuilder.attachments')
      .selectAll()
      .where('id', '=', id)
      .where('project_id', '=', projectId)
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    if (!row) throw notFound(`Attachment ${id} was not found.`, '/attachmentId');
    return row;
  }

  async get(customerId: string, projectId: string, id: string): Promise<Attachment> {
    return toAttachment(await this.row(customerId, projectId, id));
  }

  /** The stored file of an attachment, for sending its bytes. */
  async file(customerId: string, projectId: string, id: string): Promise<{ attachment: Attachment; file: FileRow }> {
    const row = await this.row(customerId, projectId, id);
    return { attachment: toAttachment(row), file: await this.files.row(this.fileScope(customerId), row.file_id) };
  }

  async delete(customerId: string, projectId: string, id: string): Promise<void> {
    const row = await this.row(customerId, projectId, id);
    // The file's row takes the attachment's with it (on delete cascade); its bytes go after.
    await this.files.remove(this.fileScope(customerId), row.file_id);
  }

  /** The attachments of the project among `ids`, in that order; unknown ids are returned apart. */
  async find(customerId: string, projectId: string, ids: string[]): Promise<{ found: Attachment[]; missing: string[] }> {
    if (ids.length === 0) return { found: [], missing: [] };
    const rows = await this.kysely
      .selectFrom('appbuilder.attachments')
      .selectAll()
      .where('id', 'in', ids)
      .where('project_id', '=', projectId)
      .where('customer_id', '=', customerId)
      .execute();
    const byId = new Map(rows.map((r) => [r.id, toAttachment(r)]));
    return { found: ids.flatMap((id) => byId.get(id) ?? []), missing: ids.filter((id) => !byId.has(id)) };
  }

  /** The bytes of an attachment (at most 25 MiB, so read whole), for the extractors. */
  async bytes(customerId: string, attachmentId: string): Promise<Buffer> {
    const row = await this.kysely.selectFrom('appbuilder.attachments').select('file_id').where('id', '=', attachmentId).where('customer_id', '=', customerId).executeTakeFirst();
    if (!row) throw notFound(`Attachment ${attachmentId} was not found.`, '/attachmentIds');
    const file = await this.files.row(this.fileScope(customerId), row.file_id);
    const chunks: Buffer[] = [];
    for await (const chunk of await this.files.content(file)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
}

