import type { PlainRecord } from './writes/plain-record.ts';

/**
 * Who calls a generated app: nobody, an end user (their record is `auth` in
 * expressions; from a bearer token, only the fields the app's expressions read:
 * auth-reads.ts), or a builder with management credentials (the app's administrator,
 * rules bypassed), or the system (schedules and events run as it).
 */
export type Caller =
  | { kind: 'anonymous' }
  | { kind: 'user'; user: PlainRecord }
  // `actor`: the API client or builder whose management credentials were given, when known.
  | { kind: 'admin'; actor?: { type: string; id: string } }
  | { kind: 'system' };

export function authOf(caller: Caller): PlainRecord | null {
  return caller.kind === 'user' ? caller.user : null;
}

/** Administrators and the system are not subject to access rules. */
export function bypassesRules(caller: Caller): boolean {
  return caller.kind === 'admin' || caller.kind === 'system';
}
