/**
 * The backup archive: one zip (fflate) of parts, with `manifest.json` naming each part's
 * SHA-256. Written part by part to a temporary file (memory does not grow with the rows); read
 * back whole and checked before anything is restored: a missing manifest, an unknown format, a
 * truncated zip or a part whose bytes do not match its hash is refused naming the part.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import { strFromU8, strToU8, unzipSync, Zip, ZipDeflate } from 'fflate';
import { unprocessable } from '../errors.ts';

export const ARCHIVE_FORMAT = 'appbuilder-application-backup';
export const ARCHIVE_FORMAT_VERSION = 1;

export interface TableSummary {
  /** Rows in the table at backup time. */
  rows: number;
  /** Order-free checksum of the rows (checksums.ts). */
  checksum: string;
}

export interface Manifest {
  format: typeof ARCHIVE_FORMAT;
  formatVersion: number;
  applicationId: string;
  customerId: string;
  createdAt: string;
  /** Per table of the application's data (one per model, and join tables): rows and checksum. */
  models: Record<string, TableSummary>;
  /** Every part but the manifest: its SHA-256 (hex). */
  parts: Record<string, string>;
}

/** Writes parts into a zip file at `path`, hashing each as it goes. */
export class ArchiveWriter {
  private readonly fd: number;
  private readonly zip: Zip;
  private readonly hashes: Record<string, string> = {};
  private readonly archiveHash = createHash('sha256');
  private bytes = 0;
  private failure: Error | null = null;
  private finished: (() => void) | null = null;

  constructor(path: string) {
    this.fd = openSync(path, 'w');
    this.zip = new Zip((error, chunk, final) => {
      if (error) {
        this.failure = error;
        return;
      }
      writeSync(this.fd, chunk);
      this.archiveHash.update(chunk);
      this.bytes += chunk.length;
      if (final) this.finished?.();
    });
  }

  /** A part written in pieces: `push` each, then `end`. */
  part(name: string): { push(text: string): void; end(): void } {
    const file = new ZipDeflate(name, { level: 1 });
    this.zip.add(file);
    const hash = createHash('sha256');
    return {
      push: (text: string) => {
        const data = strToU8(text);
        hash.update(data);
        file.push(data, false);
      },
      end: () => {
        file.push(new Uint8Array(0), true);
        this.hashes[name] = hash.digest('hex');
      },
    };
  }

  /** A whole part at once. */
  add(name: string, data: Uint8Array | string): void {
    const file = new ZipDeflate(name, { level: 1 });
    this.zip.add(file);
    const bytes = typeof data === 'string' ? strToU8(data) : data;
    this.hashes[name] = createHash('sha256').update(bytes).digest('hex');
    file.push(bytes, true);
  }

  /** Adds the manifest (with the parts' hashes) and closes the file: its size and SHA-256. */
  async finish(manifest: Omit<Manifest, 'parts'>): Promise<{ bytes: number; sha256: string }> {
    const done = new Promise<void>((resolve) => {
      this.finished = resolve;
    });
    this.add('manifest.json', JSON.stringify({ ...manifest, parts: { ...this.hashes } }, null, 1));
    this.zip.end();
    await done;
    closeSync(this.fd);
    if (this.failure) throw this.failure;
    return { bytes: this.bytes, sha256: this.archiveHash.digest('hex') };
  }

  abort(): void {
    try {
      this.zip.terminate();
      closeSync(this.fd);
    } catch {
      // already closed
    }
  }
}

/** A checked archive: its manifest and its parts by name. */
export interface OpenedArchive {
  manifest: Manifest;
  parts: Record<string, Uint8Array>;
  text(name: string): string;
}

const refuse = (path: string, message: string) => unprocessable(`The backup archive cannot be restored: ${message}.`, [{ path, message }]);

/** Opens and checks an archive; 422 naming the part at fault, before anything is changed. */
export function openArchive(bytes: Uint8Array): OpenedArchive {
  let parts: Record<string, Uint8Array>;
  try {
    parts = unzipSync(bytes);
  } catch (error) {
    throw refuse('/archive', `not a whole zip archive (${(error as Error).message}): truncated or damaged`);
  }
  const manifestBytes = parts['manifest.json'];
  if (!manifestBytes) throw refuse('/archive/manifest.json', 'the archive has no manifest.json');
  let manifest: Manifest;
  try {
    manifest = JSON.parse(strFromU8(manifestBytes)) as Manifest;
  } catch {
    throw refuse('/archive/manifest.json', 'manifest.json is not JSON');
  }
  if (manifest?.format !== ARCHIVE_FORMAT) throw refuse('/archive/manifest.json/format', `the format is not ${ARCHIVE_FORMAT}`);
  if (manifest.formatVersion !== ARCHIVE_FORMAT_VERSION) throw refuse('/archive/manifest.json/formatVersion', `format version ${String(manifest.formatVersion)} is not ${ARCHIVE_FORMAT_VERSION}`);
  if (!manifest.parts || typeof manifest.parts !== 'object') throw refuse('/archive/manifest.json/parts', 'the manifest lists no parts');
  for (const [name, expected] of Object.entries(manifest.parts)) {
    const part = parts[name];
    if (!part) throw refuse(`/archive/${name}`, `the part ${name} is missing`);
    const actual = createHash('sha256').update(part).digest('hex');
    if (actual !== expected) throw refuse(`/archive/${name}`, `the part ${name} was altered (SHA-256 ${actual} is not ${expected})`);
  }
  for (const name of Object.keys(parts)) {
    if (name !== 'manifest.json' && !(name in manifest.parts)) throw refuse(`/archive/${name}`, `the part ${name} is not in the manifest`);
  }
  return { manifest, parts, text: (name) => strFromU8(parts[name] ?? new Uint8Array(0)) };
}
