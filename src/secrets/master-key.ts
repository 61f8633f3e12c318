import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { Db } from '../storage/db.ts';
import { settingOrCreate } from '../storage/settings.ts';

/** Where the master key came from, for the start banner and docs/security.md. */
export type MasterKeyOrigin = 'APPBUILDER_MASTER_KEY' | 'APPBUILDER_MASTER_KEY_FILE' | 'key file beside the data dir' | 'store';

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

function decode(encoded: string, origin: MasterKeyOrigin): MasterKey {
  const key = Buffer.from(encoded.trim(), 'base64');
  if (key.length !== 32) throw new Error(`The master key (${origin}) must be 32 bytes, base64-encoded: make one with \`openssl rand -base64 32\`.`);
  return { key, origin };
}

/**
 * The key that seals secrets at rest (end users' signing keys) and from which the
 * management token key is derived. It lives outside the database whenever it can: the
 * environment, a file named by the environment, or (embedded store) a file beside the
 * data dir created on first start with mode 0600. A key an older version kept in the
 * store's settings moves into that file, and its row is deleted. Only a PostgreSQL
 * store without a configured key still keeps it in the store (the secrets work will
 * refuse to start then; until that lands the start banner warns).
 */
export async function loadMasterKey(db: Db, sources: MasterKeySources): Promise<MasterKey> {
  if (sources.configured) return decode(sources.configured, 'APPBUILDER_MASTER_KEY');
  if (sources.configuredFile) return decode(readFileSync(sources.configuredFile, 'utf8'), 'APPBUILDER_MASTER_KEY_FILE');
  if (!sources.dataDirKeyFile) return decode(await settingOrCreate(db, 'master_key', newKey), 'store');
  const existing = readKeyFile(sources.dataDirKeyFile);
  if (existing) {
    await forgetStoredKey(db);
    return decode(existing, 'key file beside the data dir');
  }
  const legacy = await db.kysely.selectFrom('appbuilder.settings').select('value').where('key', '=', 'master_key').executeTakeFirst();
  const written = writeKeyFileOnce(sources.dataDirKeyFile, legacy?.value ?? newKey());
  await forgetStoredKey(db);
  return decode(written, 'key file beside the data dir');
}

function newKey(): string {
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
function writeKeyFileOnce(path: string, encoded: string): string {
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
