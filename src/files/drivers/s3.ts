import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { S3Config } from '../config.ts';
import { missingBlob, type BlobInfo, type ByteRange, type StorageDriver } from './driver.ts';

// 5 MiB is S3's smallest part; two in flight bound the memory of an upload at ~10 MiB whatever its size.
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;

// The AWS SDK is imported on first use (~6-8 MB of V8 heap): a service storing files on its
// filesystem never loads it, and one on S3 loads it with its first file operation (issue 28).
interface AwsSdk {
  s3: typeof import('@aws-sdk/client-s3');
  storage: typeof import('@aws-sdk/lib-storage');
}
let awsSdk: Promise<AwsSdk> | undefined;
function loadAwsSdk(): Promise<AwsSdk> {
  awsSdk ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]).then(([s3, storage]) => ({ s3, storage }));
  return awsSdk;
}

/** The SDK and this driver's client, made together on first use. */
interface Connection {
  sdk: AwsSdk;
  client: S3Client;
}

/**
 * An S3-compatible bucket (AWS, MinIO, Ceph, s3rver…). Uploads of unknown length go up as
 * multipart uploads of bounded parts; a failed one is aborted, so no object appears. The
 * object exists only once the upload completes: S3's own atomicity.
 */
export class S3Driver implements StorageDriver {
  readonly name = 's3' as const;
  #connection: Promise<Connection> | undefined;
  #client: S3Client | undefined;
  #closed = false;

  constructor(private readonly config: S3Config) {}

  #connect(): Promise<Connection> {
    this.#connection ??= loadAwsSdk().then((sdk) => {
      const { config } = this;
      const client = new sdk.s3.S3Client({
        region: config.region,
        endpoint: config.endpoint ?? undefined,
        forcePathStyle: config.forcePathStyle,
        credentials: config.accessKeyId && config.secretAccessKey ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } : undefined,
      });
      this.#client = client;
      // Closed while the SDK loaded: the client is released at once, as close() would have.
      if (this.#closed) client.destroy();
      return { sdk, client };
    });
    return this.#connection;
  }

  private objectKey(key: string): string {
    return `${this.config.prefix}blobs/${key}`;
  }

  async put(key: string, body: Readable): Promise<void> {
    const { sdk, client } = await this.#connect();
    // The body failed while the SDK loaded (the first upload): nothing went up.
    if (body.errored) throw body.errored;
    const upload = new sdk.storage.Upload({
      client,
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
    const { sdk, client } = await this.#connect();
    try {
      const answer = await client.send(
        new sdk.s3.GetObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key), Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      );
      return answer.Body as Readable;
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === 'NoSuchKey' || name === 'NotFound') throw missingBlob(key);
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    const { sdk, client } = await this.#connect();
    await client.send(new sdk.s3.DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }));
  }

  async *list(): AsyncIterable<BlobInfo> {
    const { sdk, client } = await this.#connect();
    const prefix = `${this.config.prefix}blobs/`;
    let token: string | undefined;
    do {
      const page = await client.send(new sdk.s3.ListObjectsV2Command({ Bucket: this.config.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const object of page.Contents ?? []) {
        if (object.Key) yield { key: object.Key.slice(prefix.length), modifiedAt: object.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async sweepPartial(olderThan: Date): Promise<number> {
    const { sdk, client } = await this.#connect();
    let uploads;
    try {
      uploads = await client.send(new sdk.s3.ListMultipartUploadsCommand({ Bucket: this.config.bucket, Prefix: `${this.config.prefix}blobs/` }));
    } catch {
      return 0; // some S3-compatible servers do not list uploads; their own expiry rules clean up
    }
    let aborted = 0;
    for (const upload of uploads.Uploads ?? []) {
      if (!upload.Key || !upload.UploadId || (upload.Initiated && upload.Initiated >= olderThan)) continue;
      await client.send(new sdk.s3.AbortMultipartUploadCommand({ Bucket: this.config.bucket, Key: upload.Key, UploadId: upload.UploadId }));
      aborted++;
    }
    return aborted;
  }

  close(): void {
    this.#closed = true;
    this.#client?.destroy();
  }
}

