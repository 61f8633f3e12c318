/**
 * Zipping bundle files with fflate's streaming `Zip` + `ZipDeflate`: compressed
 * chunks are handed out as they are produced, so the caller decides where they go
 * (a database, a response) and memory stays bounded by one file plus one chunk.
 */
import { Zip, ZipDeflate, strToU8 } from 'fflate';
import type { BundleFile } from './bundle.ts';

/** A fixed timestamp: the same files give the same bytes (cache-friendly, testable). */
const MTIME = new Date('2020-01-01T00:00:00Z');

/**
 * Streams `files` as a zip into `onChunk`, awaiting it for each chunk (back-pressure);
 * `files` may be lazy (a generator): only the file being compressed is held.
 * Resolves when the archive is complete.
 */
export async function zipFiles(files: Iterable<BundleFile> | AsyncIterable<BundleFile>, onChunk: (chunk: Uint8Array) => Promise<void> | void): Promise<void> {
  const queue: Uint8Array[] = [];
  let failure: Error | null = null;
  let finished = false;
  const zip = new Zip((error, chunk, final) => {
    if (error) failure = error;
    else {
      queue.push(chunk);
      if (final) finished = true;
    }
  });
  const drain = async () => {
    while (queue.length > 0) await onChunk(queue.shift()!);
    if (failure) throw failure;
  };
  // Files are taken one at a time (a generator makes each when asked), compressed, handed on.
  for await (const file of files) {
    const entry = new ZipDeflate(file.path, { level: 9 });
    entry.mtime = MTIME;
    zip.add(entry);
    entry.push(strToU8(file.content), true);
    await drain();
  }
  zip.end();
  await drain();
  if (!finished) throw new Error('The zip stream did not finish.');
}

/** The whole archive in memory: for tests and small callers. */
export async function zipToBuffer(files: Iterable<BundleFile> | AsyncIterable<BundleFile>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  await zipFiles(files, (chunk) => {
    chunks.push(chunk);
  });
  return Buffer.concat(chunks);
}
