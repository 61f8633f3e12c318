// `appbuilder rotate-master-key`: every data key re-wrapped from the current master key to a new
// one in one transaction (DESIGN §11); the values sealed under the data keys are not touched.
// Run it with the service stopped: a running process keeps the old key in memory.
import { chmodSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { loadConfig, type Config } from '../config.ts';
import { openDb } from '../platform.ts';
import { rewrapDataKeys } from '../secrets/data-keys.ts';
import { decode, loadMasterKey, MAKE_A_KEY, masterKeyFileFor, newKey, writeKeyFileOnce } from '../secrets/master-key.ts';
import { migrateControlPlane } from '../storage/migrate.ts';

export interface RotationResult {
  rewrapped: number;
  /** Where the new key is: the key file replaced, or the file given. */
  keyLocation: string;
  /** What the operator must do next. */
  nextSteps: string;
}

export async function rotateMasterKey(config: Config, options: { newKeyFile?: string } = {}): Promise<RotationResult> {
  const { db, release } = await openDb(config);
  try {
    await migrateControlPlane(db);
    const dataDirKeyFile = config.databaseUrl ? null : masterKeyFileFor(config.dataDir);
    const current = await loadMasterKey(db, { configured: config.masterKey, configuredFile: config.masterKeyFile, dataDirKeyFile });
    if (options.newKeyFile) {
      const next = decode(readFileSync(options.newKeyFile, 'utf8'), 'APPBUILDER_MASTER_KEY_FILE');
      if (next.key.equals(current.key)) throw new Error('The new key is the current key.');
      const rewrapped = await rewrapDataKeys(db, current.key, next.key);
      return {
        rewrapped,
        keyLocation: options.newKeyFile,
        nextSteps: `Start every process with APPBUILDER_MASTER_KEY_FILE=${options.newKeyFile} (or APPBUILDER_MASTER_KEY set to its content) from now on.`,
      };
    }
    if (current.origin !== 'key file beside the data dir' || !dataDirKeyFile) {
      throw new Error(`The master key comes from ${current.origin}: give the new one with --new-key-file <path>. ${MAKE_A_KEY}`);
    }
    // The new key is written first (beside the old), the keys re-wrapped, then the file replaced.
    const pending = `${dataDirKeyFile}.new`;
    rmSync(pending, { force: true });
    const encoded = writeKeyFileOnce(pending, newKey());
    let rewrapped: number;
    try {
      rewrapped = await rewrapDataKeys(db, current.key, decode(encoded, 'key file beside the data dir').key);
    } catch (error) {
      rmSync(pending, { force: true });
      throw error;
    }
    renameSync(pending, dataDirKeyFile);
    chmodSync(dataDirKeyFile, 0o600);
    return { rewrapped, keyLocation: dataDirKeyFile, nextSteps: 'Start the service again; it reads the new key file.' };
  } finally {
    await db.close();
    release();
  }
}

export async function rotateMasterKeyCommand(options: { newKeyFile?: string }): Promise<void> {
  const result = await rotateMasterKey(loadConfig(), options);
  process.stdout.write(
    [
      `Re-wrapped ${result.rewrapped} data key${result.rewrapped === 1 ? '' : 's'} under the new master key (${result.keyLocation}).`,
      result.nextSteps,
      'Management access tokens issued before now are no longer accepted (their key derives from the master key): request new ones.',
      '',
    ].join('\n'),
  );
}
