import { join, resolve } from 'node:path';

/** Where customers' files go and how much they may hold (DESIGN §12), read from the environment. */
export interface StorageConfig {
  driver: 'filesystem' | 's3';
  /** Filesystem driver root (APPBUILDER_STORAGE_DIR; default `<data dir>/files`). */
  dir: string;
  /** Largest file accepted, bytes (APPBUILDER_STORAGE_MAX_FILE_BYTES, default 100 MiB). */
  maxFileBytes: number;
  /** Bytes one customer may hold in all (APPBUILDER_STORAGE_QUOTA_BYTES, default 1 GiB). */
  quotaBytes: number;
  /** Largest upload to a generated app's `POST /files` (APPBUILDER_APP_FILE_MAX_BYTES, default 10 MiB; DESIGN §6). */
  appMaxFileBytes: number;
  /** Temp files and unreferenced blobs older than this are swept, seconds (APPBUILDER_STORAGE_SWEEP_AGE, default 3600). */
  sweepAgeSeconds: number;
  s3: S3Config | null;
}

export interface S3Config {
  bucket: string;
  region: string;
  endpoint: string | null;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  forcePathStyle: boolean;
  /** Prefix of every object key, e.g. `appbuilder/`. */
  prefix: string;
}

function bytesFrom(value: string | undefined, fallback: number): number {
  const parsed = value === undefined || value === '' ? NaN : Number(value);
  return Number.isSafeInteger(parsed) && parsed >= 0 ? parsed : fallback;
}

export function loadStorageConfig(env: NodeJS.ProcessEnv, dataDir: string): StorageConfig {
  const bucket = env.APPBUILDER_STORAGE_S3_BUCKET;
  return {
    driver: env.APPBUILDER_STORAGE_DRIVER === 's3' || (bucket && env.APPBUILDER_STORAGE_DRIVER !== 'filesystem') ? 's3' : 'filesystem',
    dir: resolve(env.APPBUILDER_STORAGE_DIR || join(dataDir, 'files')),
    maxFileBytes: bytesFrom(env.APPBUILDER_STORAGE_MAX_FILE_BYTES, 100 * 1024 * 1024),
    quotaBytes: bytesFrom(env.APPBUILDER_STORAGE_QUOTA_BYTES, 1024 * 1024 * 1024),
    appMaxFileBytes: bytesFrom(env.APPBUILDER_APP_FILE_MAX_BYTES, 10 * 1024 * 1024),
    sweepAgeSeconds: bytesFrom(env.APPBUILDER_STORAGE_SWEEP_AGE, 3600),
    s3: bucket
      ? {
          bucket,
          region: env.APPBUILDER_STORAGE_S3_REGION || 'us-east-1',
          endpoint: env.APPBUILDER_STORAGE_S3_ENDPOINT || null,
          accessKeyId: env.APPBUILDER_STORAGE_S3_ACCESS_KEY_ID || null,
          secretAccessKey: env.APPBUILDER_STORAGE_S3_SECRET_ACCESS_KEY || null,
          forcePathStyle: env.APPBUILDER_STORAGE_S3_FORCE_PATH_STYLE === 'true' || Boolean(env.APPBUILDER_STORAGE_S3_ENDPOINT),
          prefix: env.APPBUILDER_STORAGE_S3_PREFIX ?? '',
        }
      : null,
  };
}
