// Runs are kept for APPBUILDER_RUN_RETENTION: working processes delete older ones periodically.
// Several processes sweeping at once is harmless (each delete is idempotent).
import type { Db } from '../../storage/db.ts';
import { RunStore } from './store.ts';

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
  const sweep = () => store.deleteStartedBefore(new Date(Date.now() - retentionSeconds * 1000));
  // At most hourly, and often enough for short retentions (tests).
  const interval = options.intervalSeconds ?? Math.min(3600, Math.max(1, Math.floor(retentionSeconds / 10)));
  const timer = setInterval(() => void sweep().catch((error: unknown) => options.onError?.(error)), interval * 1000);
  timer.unref();
  return { sweep, stop: () => clearInterval(timer) };
}
