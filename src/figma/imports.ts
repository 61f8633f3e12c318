/**
 * Figma imports as stored (migration 016): the tables as Kysely sees them, the import as the API
 * shows it, and the imported file's JSON read, checked and kept gzipped.
 */
import { gunzipSync, gzipSync } from 'fflate';
import type { ColumnType, Kysely } from 'kysely';
import type { Actor } from '../access/roles.ts';
import { unprocessable } from '../errors.ts';
import type { Executor } from '../storage/db.ts';
import type { ControlPlane } from '../storage/tables.ts';
import { toIso } from '../storage/sql.ts';
import { listFrames } from './render/index.ts';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface FigmaFrame {
  nodeId: string;
  name: string;
  page: string;
  width: number;
  height: number;
}

export interface FigmaImportsTable {
  id: string;
  customer_id: string;
  project_id: string;
  file_key: string | null;
  attachment_id: string | null;
  name: string;
  version: string | null;
  last_modified: ColumnType<Date | null, Date | string | null, Date | string | null>;
  frames: ColumnType<FigmaFrame[], string, string>;
  document: Uint8Array;
  document_bytes: ColumnType<string | number, number, number>;
  created_at: Timestamp;
  created_by: ColumnType<Actor | null, string | null, string | null>;
}

export interface FigmaImportImagesTable {
  import_id: string;
  image_ref: string;
  content_type: string;
  data: Uint8Array;
}

export interface FigmaCodeResultsTable {
  job_id: string;
  import_id: string;
  zip: Uint8Array;
  size_bytes: ColumnType<string | number, number, number>;
  sha256: string;
  file_count: number;
  created_at: Timestamp;
}

// A type, not an interface: withTables needs an index signature.
export type FigmaTables = {
  'appbuilder.figma_imports': FigmaImportsTable;
  'appbuilder.figma_import_images': FigmaImportImagesTable;
  'appbuilder.figma_code_results': FigmaCodeResultsTable;
};

/** The same handle (or transaction), typed with this module's tables. */
export function figmaKysely(executor: Executor): Kysely<ControlPlane & FigmaTables> {
  return executor.withTables<FigmaTables>();
}

/** An import as the API answers it (DESIGN §14). */
export interface FigmaImport {
  id: string;
  projectId: string;
  /** Null for an import from an uploaded attachment. */
  fileKey: string | null;
  name: string;
  version: string | null;
  lastModified: string | null;
  frames: FigmaFrame[];
  createdAt: string;
}

export type ImportRow = Omit<FigmaImportsTable, 'document' | 'frames' | 'last_modified' | 'created_at' | 'created_by' | 'document_bytes'> & {
  frames: FigmaFrame[];
  last_modified: Date | null;
  created_at: Date;
};

export function toFigmaImport(row: ImportRow): FigmaImport {
  return {
    id: row.id,
    projectId: row.project_id,
    fileKey: row.file_key,
    name: row.name,
    version: row.version,
    lastModified: row.last_modified ? toIso(row.last_modified)! : null,
    frames: row.frames,
    createdAt: toIso(row.created_at)!,
  };
}

/** A Figma file read from its JSON: what the import row keeps of it. */
export interface ReadFile {
  name: string | null;
  version: string | null;
  lastModified: string | null;
  frames: FigmaFrame[];
  /** The JSON, gzipped. */
  gzipped: Uint8Array;
  bytes: number;
}

/**
 * Parses and checks a Figma file (the body of `GET /v1/files/{key}`, or an upload of one): 422
 * naming `pointer` when it is not JSON or has no pages. The frames are the renderer's own list.
 */
export function readFigmaFile(json: Uint8Array, pointer: string): ReadFile {
  let document: unknown;
  try {
    document = JSON.parse(Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString('utf8'));
  } catch (error) {
    throw unprocessable(`Not a Figma file: the JSON does not parse (${(error as Error).message}).`, [{ path: pointer, message: 'is not JSON' }]);
  }
  let frames: FigmaFrame[];
  try {
    frames = listFrames(document);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw unprocessable(`Not a Figma file: ${detail}`, [{ path: pointer, message: detail }]);
  }
  const top = document as { name?: unknown; version?: unknown; lastModified?: unknown };
  const lastModified = typeof top.lastModified === 'string' && !Number.isNaN(Date.parse(top.lastModified)) ? new Date(top.lastModified).toISOString() : null;
  return {
    name: typeof top.name === 'string' && top.name.trim() !== '' ? top.name.trim().slice(0, 500) : null,
    version: typeof top.version === 'string' || typeof top.version === 'number' ? String(top.version) : null,
    lastModified,
    frames,
    // Level 6: most of the gain of 9 at a fraction of its time, inside the import's request.
    gzipped: gzipSync(json, { level: 6 }),
    bytes: json.byteLength,
  };
}

/** The stored file's document, as the renderer takes it. */
export function openDocument(gzipped: Uint8Array): unknown {
  return JSON.parse(Buffer.from(gunzipSync(gzipped)).toString('utf8'));
}
