// Who a management request acts for, seen by the stores that record `createdBy` (versions,
// jobs) without every service passing it down. Set by the guard for the handler of each
// management request (guard.ts); jobs and startup run outside it and record no actor.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RawBuilder } from 'kysely';
import { jsonb } from '../storage/sql.ts';
import type { Actor } from './roles.ts';

const actors = new AsyncLocalStorage<Actor>();

/** The actor of the management request this code runs for, else null. */
export function currentActor(): Actor | null {
  return actors.getStore() ?? null;
}

/** Runs `fn` on behalf of `actor`. */
export function runAsActor<T>(actor: Actor, fn: () => T): T {
  return actors.run(actor, fn);
}

/** The current actor as the value of a `created_by` jsonb column (SQL null outside a management request). */
export function actorJson(): RawBuilder<string> | null {
  const actor = currentActor();
  return actor ? jsonb(actor) : null;
}
