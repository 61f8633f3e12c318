import type { ColumnType, Kysely } from 'kysely';
import type { Actor } from '../access/roles.ts';
import type { ControlPlane } from '../storage/tables.ts';
import type { FilesDb, FilesTable } from '../files/table.ts';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string, string>;
type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;

/** appbuilder.attachments (migration 011). */
export interface AttachmentsTable {
  id: string;
  customer_id: string;
  project_id: string;
  file_id: string;
  name: string;
  content_type: string;
  size: ColumnType<number, number, number>;
  sha256: string;
  kind: string;
  created_at: Timestamp;
  created_by: NullableJson<Actor>;
}

/** appbuilder.specifications (migration 011). */
export interface SpecificationsTable {
  id: string;
  customer_id: string;
  project_id: string;
  name: string;
  attachment_ids: Json<string[]>;
  instructions: string | null;
  status: string;
  job_id: string | null;
  error_message: string | null;
  content: NullableJson<Record<string, unknown>>;
  provenance: Json<Record<string, unknown>>;
  warnings: Json<unknown[]>;
  summary: NullableJson<Record<string, unknown>>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type SpecificationTables = {
  'appbuilder.attachments': AttachmentsTable;
  'appbuilder.specifications': SpecificationsTable;
  'appbuilder.files': FilesTable;
};

export type SpecificationsDb = ControlPlane & SpecificationTables;

/** The control plane's Kysely with the attachment, specification and file tables known. */
export function specificationsKysely(kysely: Kysely<ControlPlane> | Kysely<FilesDb>): Kysely<SpecificationsDb> {
  // Both are the one control-plane handle (or a transaction of it), typed with fewer tables.
  return (kysely as Kysely<ControlPlane>).withTables<SpecificationTables>();
}
