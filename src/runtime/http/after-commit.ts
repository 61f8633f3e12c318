import type { Db, Executor } from '../../storage/db.ts';
import { outsideRequests } from '../../storage/request-scope.ts';

/**
 * Runs work in one transaction and, once it has committed, tells the event
 * dispatcher that the outbox has new rows. Nothing is announced for a rollback.
 */
export class AfterCommit {
  private readonly listeners: Array<() => void> = [];

  onCommitted(listener: () => void): void {
    this.listeners.push(listener);
  }

  async run<T>(db: Db, work: (trx: Executor) => Promise<T>): Promise<T> {
    const result = await db.kysely.transaction().execute(work);
    this.committed();
    return result;
  }

  /** Tells the listeners that a transaction run elsewhere (an import's) has committed outbox rows. */
  committed(): void {
    // The dispatch pass it starts is not the request's: it must not stop when the client leaves.
    for (const listener of this.listeners) outsideRequests(listener);
  }
}
