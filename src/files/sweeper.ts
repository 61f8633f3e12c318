import { sql } from 'kysely';
import type { Db } from '../storage/db.ts';
import type { StorageDriver } from './drivers/driver.ts';
import { filesKysely } from './table.ts';

const BATCH = 500;

export interface SweepResult {
  /** Temp files / unfinished uploads removed. */
  partial: number;
  /** Whole blobs no row refers to, removed. */
  orphans: number;
}

/**
 * Removes what a crash or a failed cleanup left behind: partial writes, and blobs without a row
 * (killed between the rename and the commit, a replaced or deleted file whose removal failed,
 * a deleted customer). Only what is older than `olderThanMs`, so an upload in flight in this
 * or another process, whose row is about to be committed, is never touched.
 */
export async function sweepOrphans(db: Db, driver: StorageDriver, olderThanMs: number): Promise<SweepResult> {
  const cutoff = new Date(Date.now() - olderThanMs);
  const partial = await driver.sweepPartial(cutoff);
  let orphans = 0;
  let batch: string[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const known = await filesKysely(db).selectFrom('appbuilder.files').select('blob_key').where('blob_key', 'in', batch).execute();
    // A backup's archive is a blob of its own row (src/backups/).
    const archives = await sql<{ blob_key: string }>`select blob_key from appbuilder.backups where blob_key = any(cast(${batch} as text[]))`.execute(db.kysely);
    const referenced = new Set([...known.map((row) => row.blob_key), ...archives.rows.map((row) => row.blob_key)]);
    for (const key of batch) {
      if (referenced.has(key)) continue;
      await driver.remove(key);
      orphans++;
    }
    batch = [];
  };
  for await (const blob of driver.list()) {
    if (blob.modifiedAt >= cutoff) continue;
    batch.push(blob.key);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  return { partial, orphans };
}
