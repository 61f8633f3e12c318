/**
 * The generated site as one zip (fflate): `index.html`, one page per frame, `styles.css`,
 * `assets/`. Text is deflated; images, compressed already, are stored as they are. A fixed
 * timestamp makes the same files give the same bytes.
 */
import { createHash } from 'node:crypto';
import { strToU8, zipSync, type Zippable } from 'fflate';
import type { RenderedFile } from './render/index.ts';

const MTIME = new Date('2020-01-01T00:00:00Z');
const STORED = /\.(png|jpe?g|gif|webp|avif|woff2?)$/i;

export interface SitePackage {
  zip: Uint8Array;
  sha256: string;
  fileCount: number;
}

/** Zips the files in one pass (a site is a few megabytes at most: its images are bounded at import). */
export function packageSite(files: RenderedFile[]): SitePackage {
  const entries: Zippable = {};
  for (const file of files) {
    const bytes = typeof file.content === 'string' ? strToU8(file.content) : file.content;
    entries[file.path] = [bytes, { level: STORED.test(file.path) ? 0 : 6, mtime: MTIME }];
  }
  const archive = zipSync(entries);
  return { zip: archive, sha256: createHash('sha256').update(archive).digest('hex'), fileCount: files.length };
}
