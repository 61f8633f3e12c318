// Who a management request acts for, seen by the stores that record `createdBy` (versions,
// jobs, runs) and the audit row of a write (audit.ts), without every service passing them
// down. Set by the guard for the handler of each management request (guard.ts); jobs and
// startup run outside it and record no actor.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RawBuilder } from 'kysely';
import { jsonb } from '../storage/sql.ts';
import type { Actor } from './roles.ts';

/** The audit row a management write will leave (written in its transaction where it has one). */
export interface PendingAudit {
  id: string;
  customerId: string;
  actor: Actor;
  operationId: string | null;
  method: string;
  path: string;
  requestId: string;
  /** The status the route answers when it succeeds (its first 2xx response). */
  successStatus: number;
  /** Whether a transaction of the request has written the row (it may yet roll back). */
  written: boolean;
}

export interface RequestContext {
  actor: Actor;
  audit: PendingAudit | null;
}

const contexts = new AsyncLocalStorage<RequestContext>();

/** The actor of the management request this code runs for, else null. */
export function currentActor(): Actor | null {
  return contexts.getStore()?.actor ?? null;
}

/** The audit row the current management write will leave, else null (reads, jobs, startup). */
export function currentAudit(): PendingAudit | null {
  return contexts.getStore()?.audit ?? null;
}

/** Runs `fn` on behalf of `context.actor`. */
export function runInContext<T>(context: RequestContext, fn: () => T): T {
  return contexts.run(context, fn);
}

/** The current actor as the value of a `created_by` jsonb column (SQL null outside a management request). */
export function actorJson(): RawBuilder<string> | null {
  const actor = currentActor();
  return actor ? jsonb(actor) : null;
}
