import type { Db } from '../storage/db.ts';
import type { StorageConfig } from '../files/config.ts';
import { FilesystemDriver } from '../files/drivers/filesystem.ts';
import { S3Driver } from '../files/drivers/s3.ts';
import type { StorageDriver } from '../files/drivers/driver.ts';
import { FileService } from '../files/service.ts';

export type { FileService };

/** The configured driver: S3 when APPBUILDER_STORAGE_S3_BUCKET (or APPBUILDER_STORAGE_DRIVER=s3) is set, else the filesystem. */
export function storageDriver(config: StorageConfig): StorageDriver {
  if (config.driver === 's3') {
    if (!config.s3) throw new Error('APPBUILDER_STORAGE_DRIVER=s3 needs APPBUILDER_STORAGE_S3_BUCKET (and _ENDPOINT, _REGION, _ACCESS_KEY_ID, _SECRET_ACCESS_KEY as the server needs).');
    return new S3Driver(config.s3);
  }
  return new FilesystemDriver(config.dir);
}

export function createFileService(db: Db, config: StorageConfig, masterKey: Buffer): FileService {
  return new FileService(db, storageDriver(config), config, masterKey);
}
