import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { S3Config } from '../config.ts';
import { missingBlob, type BlobInfo, type ByteRange, type StorageDriver } from './driver.ts';

// 5 MiB is S3's smallest part; two in flight bound the memory of an upload at ~10 MiB whatever its size.
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;

/**
 * An S3-compatible bucket (AWS, MinIO, Ceph, s3rver…). Uploads of unknown length go up as
 * multipart uploads of bounded parts; a failed one is aborted, so no object appears. The
 * object exists only once the upload completes: S3's own atomicity.
 */
export class S3Driver implements StorageDriver {
  readonly name = 's3' as const;
  private readonly client: S3Client;

  constructor(private readonly config: S3Config) {
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint ?? undefined,
      forcePathStyle: config.forcePathStyle,
      credentials: config.accessKeyId && config.secretAccessKey ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } : undefined,
    });
  }

  private objectKey(key: string): string {
    return `${this.config.prefix}blobs/${key}`;
  }

  async put(key: string, body: Readable): Promise<void> {
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.config.bucket, Key: this.objectKey(key), Body: body },
      partSize: PART_SIZE,
      queueSize: QUEUE_SIZE,
      leavePartsOnError: false,
    });
    // The body may fail (size limit, client gone): stop the upload, which aborts it.
    const stop = () => void upload.abort().catch(() => {});
    body.once('error', stop);
    try {
      await upload.done();
    } catch (error) {
      // The body's own failure (a limit, the client gone) is the reason, not the abort it caused.
      throw body.errored ?? error;
    } finally {
      body.off('error', stop);
    }
    if (body.errored) {
      await this.remove(key);
      throw body.errored;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key), Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      );
      return answer.Body as Readable;
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === 'NoSuchKey' || name === 'NotFound') throw missingBlob(key);
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }));
  }

  async *list(): AsyncIterable<BlobInfo> {
    const prefix = `${this.config.prefix}blobs/`;
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.config.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const object of page.Contents ?? []) {
        if (object.Key) yield { key: object.Key.slice(prefix.length), modifiedAt: object.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async sweepPartial(olderThan: Date): Promise<number> {
    let uploads;
    try {
      uploads = await this.client.send(new ListMultipartUploadsCommand({ Bucket: this.config.bucket, Prefix: `${this.config.prefix}blobs/` }));
    } catch {
      return 0; // some S3-compatible servers do not list uploads; their own expiry rules clean up
    }
    let aborted = 0;
    for (const upload of uploads.Uploads ?? []) {
      if (!upload.Key || !upload.UploadId || (upload.Initiated && upload.Initiated >= olderThan)) continue;
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.config.bucket, Key: upload.Key, UploadId: upload.UploadId }));
      aborted++;
    }
    return aborted;
  }

  close(): void {
    this.client.destroy();
  }
}

