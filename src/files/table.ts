import type { ColumnType, Kysely } from 'kysely';
import type { Db } from '../storage/db.ts';
import type { ControlPlane } from '../storage/tables.ts';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** appbuilder.files (migration 008; `project_id` since 019). */
export interface FilesTable {
  id: string;
  customer_id: string;
  builder_id: string | null;
  project_id: string | null;
  path: string;
  size: ColumnType<number, number, number>;
  content_type: string;
  sha256: string;
  blob_key: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type FilesDb = ControlPlane & { 'appbuilder.files': FilesTable };

/** The control plane's Kysely with the files table known. */
export function filesKysely(db: Db): Kysely<FilesDb> {
  return db.kysely.withTables<{ 'appbuilder.files': FilesTable }>();
}

export type FileRow = {
  id: string;
  customer_id: string;
  builder_id: string | null;
  project_id: string | null;
  path: string;
  size: number;
  content_type: string;
  sha256: string;
  blob_key: string;
  created_at: Date;
  updated_at: Date;
};
