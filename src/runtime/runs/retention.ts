// Runs are kept for APPBUILDER_RUN_RETENTION: working processes delete older ones periodically
// (and Idempotency-Keys older than 24 h).
// Several processes sweeping at once is harmless (each delete is idempotent).
import type { Db } from '../../storage/db.ts';
import { RunStore } from './store.ts';
import { pruneIdempotencyKeys } from '../../storage/idempotency.ts';

export interface RunRetention {
  /** One sweep now; resolves to how many runs were deleted. */
  sweep(): Promise<number>;
  stop(): void;
}

export function startRunRetention(
  db: Db,
  retentionSeconds: number,
  options: { intervalSeconds?: number; onError?: (error: unknown) => void } = {},
): RunRetention {
  const store = new RunStore(db);
  const sweep = async () => {
    const deleted = await store.deleteStartedBefore(new Date(Date.now() - retentionSeconds * 1000));
    // The same pass forgets Idempotency-Keys past their 24 h.
    await pruneIdempotencyKeys(db);
    return deleted;
  };
  // At most hourly, and often enough for short retentions (tests).
  const interval = options.intervalSeconds ?? Math.min(3600, Math.max(1, Math.floor(retentionSeconds / 10)));
  const timer = setInterval(() => void sweep().catch((error: unknown) => options.onError?.(error)), interval * 1000);
  timer.unref();
  return { sweep, stop: () => clearInterval(timer) };
}
