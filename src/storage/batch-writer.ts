// Rows written off the request path: `add` only pushes to memory; at most `flushAfterMs` later
// every row of that time is handed to `write` in batches of `maxRows`. A batch the database
// refuses is kept and retried a second later; beyond `maxPending` rows the oldest are dropped
// (and counted), so an outage never grows the process without bound. Callers flush before they
// read, so a row is visible as soon as the request that added it has been answered.
import { outsideRequests } from './request-scope.ts';

const RETRY_AFTER_MS = 1_000;

export interface BatchWriterOptions<T> {
  flushAfterMs: number;
  maxRows: number;
  maxPending: number;
  /** Said in the log line when a write fails. */
  what: string;
  write(batch: T[]): Promise<void>;
}

export class BatchWriter<T> {
  /** Rows dropped because the database refused them for too long. */
  dropped = 0;
  #pending: T[] = [];
  #timer: NodeJS.Timeout | null = null;
  #chain: Promise<void> = Promise.resolve();

  constructor(private readonly options: BatchWriterOptions<T>) {}

  add(row: T): void {
    if (this.#pending.length >= this.options.maxPending) {
      this.#pending.shift();
      this.dropped++;
    }
    this.#pending.push(row);
    this.#schedule(this.options.flushAfterMs);
  }

  /** Writes every row added so far; resolves when they are stored (or, on a database error, kept for a retry). */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    this.#chain = this.#chain.then(() => this.#drain());
    return this.#chain;
  }

  #schedule(delay: number): void {
    if (this.#timer) return;
    // Outside the request that added the row: its client leaving must not cancel the write.
    this.#timer = outsideRequests(() =>
      setTimeout(() => {
        this.#timer = null;
        void this.flush();
      }, delay),
    );
    // The service flushes when it stops; a pending write alone does not keep the process alive.
    this.#timer.unref();
  }

  async #drain(): Promise<void> {
    // Only the rows pending now: those added while they are written wait for their own timer.
    // Looping until none are left wrote back to back whenever a write took longer than rows took
    // to arrive (a commit waits for the disk): a statement and a commit for every few rows.
    let left = this.#pending.length;
    while (left > 0 && this.#pending.length > 0) {
      const batch = this.#pending.splice(0, Math.min(left, this.options.maxRows));
      left -= batch.length;
      try {
        await this.options.write(batch);
      } catch (error) {
        this.#pending.unshift(...batch);
        console.error(`Writing ${this.options.what} failed; retrying.`, error);
        this.#schedule(RETRY_AFTER_MS);
        return;
      }
    }
  }
}
