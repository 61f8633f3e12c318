import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/** How many leading bytes content sniffing needs (file-type reads at most this many for most formats). */
export const SNIFF_BYTES = 4100;

/** The upload passed `limit` bytes; `reason` says which limit. */
export class TooLarge extends Error {
  constructor(
    readonly limit: number,
    readonly reason: 'file' | 'quota',
  ) {
    super(`more than ${limit} bytes`);
  }
}

/**
 * Counts, hashes and keeps the first bytes of an upload on its way to the driver, and fails it
 * as soon as it passes `limit` (nothing more is read into memory than one chunk).
 */
export class Meter extends Transform {
  /** Bytes that passed so far. (Not `size`: the S3 upload helper reads a body's `size` as its length.) */
  bytes = 0;
  private readonly hash = createHash('sha256');
  private readonly headChunks: Buffer[] = [];
  private headSize = 0;

  constructor(private readonly limit: { bytes: number; reason: 'file' | 'quota' }) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limit.bytes) {
      callback(new TooLarge(this.limit.bytes, this.limit.reason));
      return;
    }
    this.hash.update(chunk);
    if (this.headSize < SNIFF_BYTES) {
      const part = chunk.subarray(0, SNIFF_BYTES - this.headSize);
      this.headChunks.push(Buffer.from(part));
      this.headSize += part.length;
    }
    callback(null, chunk);
  }

  /** The sha256 (hex) of everything that passed; call once, after the end. */
  digest(): string {
    return this.hash.digest('hex');
  }

  head(): Buffer {
    return Buffer.concat(this.headChunks);
  }
}
