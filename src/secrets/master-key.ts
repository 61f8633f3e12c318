import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { Db } from '../storage/db.ts';

/** Where the master key came from, for the start banner and docs/security.md. */
export type MasterKeyOrigin = 'APPBUILDER_MASTER_KEY' | 'APPBUILDER_MASTER_KEY_FILE' | 'key file beside the data dir';

export interface MasterKey {
  key: Buffer;
  origin: MasterKeyOrigin;
}

export interface MasterKeySources {
  /** APPBUILDER_MASTER_KEY: 32 bytes, base64. */
  configured: string | null;
  /** APPBUILDER_MASTER_KEY_FILE: a file holding the same. */
  configuredFile: string | null;
  /** The embedded store's key file (`<dataDir>.master.key`), or null when there is no data dir of ours. */
  dataDirKeyFile: string | null;
}

/** The embedded store keeps its master key beside its data dir, not inside it: a copy of the data dir alone opens nothing. */
export function masterKeyFileFor(dataDir: string): string {
  return `${dataDir.replace(/\/+$/, '')}.master.key`;
}

export function decode(encoded: string, origin: MasterKeyOrigin): MasterKey {
  const key = Buffer.from(encoded.trim(), 'base64');
  if (key.length !== 32) throw new Error(`The master key (${origin}) must be 32 bytes, base64-encoded: make one with \`openssl rand -base64 32\`.`);
  return { key, origin };
}

/** How to make a key, said by every refusal. */
export const MAKE_A_KEY =
  'Make one with `openssl rand -base64 32` and pass it as APPBUILDER_MASTER_KEY, or write it to a file (mode 0600) named by APPBUILDER_MASTER_KEY_FILE.';

/**
 * The key that wraps every data key (secrets, variables' owners, the apps' signing keys) and from
 * which the management token key is derived (DESIGN §11). It never lives in the database: the
 * environment, a file named by the environment, or (embedded store) a file beside the data dir
 * created on first start with mode 0600. A key an older version kept in the store's settings
 * moves into that file (embedded) and its row is deleted; on PostgreSQL without a configured key
 * the service refuses to start, saying how to move it out or make one.
 */
export async function loadMasterKey(db: Db, sources: MasterKeySources): Promise<MasterKey> {
  const legacy = (await db.kysely.selectFrom('appbuilder.settings').select('value').where('key', '=', 'master_key').executeTakeFirst())?.value ?? null;
  if (sources.configured || sources.configuredFile) {
    const key = sources.configured
      ? decode(sources.configured, 'APPBUILDER_MASTER_KEY')
      : decode(readFileSync(sources.configuredFile!, 'utf8'), 'APPBUILDER_MASTER_KEY_FILE');
    if (legacy !== null) {
      // The stored key sealed what an older version wrote: it may only go once the configured key is that key.
      if (!decode(legacy, key.origin).key.equals(key.key)) {
        throw new Error(
          `The database still holds the master key an older version kept there (appbuilder.settings, key 'master_key'), and ${key.origin} is another key. ` +
            `Set ${key.origin} to that stored key and start again: it is then deleted from the database.`,
        );
      }
      await forgetStoredKey(db);
    }
    return key;
  }
  if (!sources.dataDirKeyFile) {
    if (legacy !== null) {
      throw new Error(
        "The master key is kept in the database (appbuilder.settings, key 'master_key'), where a dump of the database opens every secret. " +
          "Move it out: set APPBUILDER_MASTER_KEY to the value of `select value from appbuilder.settings where key = 'master_key'` " +
          '(or write it to a 0600 file named by APPBUILDER_MASTER_KEY_FILE) and start again; the row is then deleted.',
      );
    }
    throw new Error(`No master key is configured, and with DATABASE_URL none is made for you (it must not live in the database). ${MAKE_A_KEY}`);
  }
  const existing = readKeyFile(sources.dataDirKeyFile);
  if (existing) {
    await forgetStoredKey(db);
    return decode(existing, 'key file beside the data dir');
  }
  const written = writeKeyFileOnce(sources.dataDirKeyFile, legacy ?? newKey());
  await forgetStoredKey(db);
  return decode(written, 'key file beside the data dir');
}

/** A fresh key, base64 (rotate-master-key and the embedded first start). */
export function newKey(): string {
  return randomBytes(32).toString('base64');
}

function readKeyFile(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Creates the file exclusively; if another process won the race, its key is the one. */
export function writeKeyFileOnce(path: string, encoded: string): string {
  try {
    const fd = openSync(path, 'wx', 0o600);
    try {
      writeSync(fd, `${encoded}\n`);
    } finally {
      closeSync(fd);
    }
    chmodSync(path, 0o600);
    return encoded;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readFileSync(path, 'utf8');
  }
}

async function forgetStoredKey(db: Db): Promise<void> {
  await db.kysely.deleteFrom('appbuilder.settings').where('key', '=', 'master_key').execute();
}
