import type { Readable } from 'node:stream';

/** A stored blob as the sweeper sees it. */
export interface BlobInfo {
  key: string;
  modifiedAt: Date;
}

/** An inclusive byte range, as HTTP states it. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where the bytes of files live (DESIGN §12). Keys are ours (uuids), never a customer's path.
 * `put` is atomic: when it rejects nothing of the blob remains; when it resolves the bytes are
 * durable. Everything else (rows, quotas, hashing) is the service's.
 */
export interface StorageDriver {
  readonly name: 'filesystem' | 's3';
  put(key: string, body: Readable): Promise<void>;
  /** The blob's bytes, or those of `range`; rejects with code `ENOENT` when there is no such blob. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Removes the blob; a missing one is not an error. */
  remove(key: string): Promise<void>;
  /** Every blob, for the orphan sweeper. */
  list(): AsyncIterable<BlobInfo>;
  /** Removes partial writes (temp files, unfinished multipart uploads) begun before `olderThan`; returns how many. */
  sweepPartial(olderThan: Date): Promise<number>;
}

export function missingBlob(key: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`The stored bytes of blob ${key} are missing.`);
  error.code = 'ENOENT';
  return error;
}
