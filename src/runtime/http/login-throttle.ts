/**
 * Brute force against end-user accounts: sign-up and log-in attempts are limited per address
 * (`APPBUILDER_AUTH_RATE_LIMIT` a minute), and an account (the email tried, registered or not)
 * is locked after `APPBUILDER_AUTH_MAX_FAILURES` failed log-ins, first for
 * `APPBUILDER_AUTH_LOCKOUT` seconds, twice as long at each further lock. A locked account
 * answers 429 with `Retry-After` to every attempt, the right password included; an unknown email
 * is counted and locked the same way, so the answers never tell whether an email is registered.
 * Counted in this process's memory.
 */
import { Problem } from '../../errors.ts';
import type { CompiledApp } from '../compiled-app.ts';
import { MinuteCounter, addressKey, tooManyRequests, type RateLimitSettings } from './rate-limits.ts';
import type { AppResponse } from './types.ts';

/** Failures older than this no longer count towards a lock. */
const FAILURE_WINDOW_MS = 15 * 60_000;
/** How long after its last lock or failure an account's past locks still double the next one. */
const MEMORY_MS = 60 * 60_000;
const MAX_LOCK_SECONDS = 24 * 3600;
const MAX_ACCOUNTS = 100_000;

interface AccountState {
  failures: number;
  firstFailureAt: number;
  lockedUntil: number;
  locks: number;
  lastSeenAt: number;
}

/** `{email}` of a log-in body as accounts are keyed (trimmed, lower case), or null. */
function emailOf(body: unknown): string | null {
  const email = (body as { email?: unknown } | null | undefined)?.email;
  return typeof email === 'string' ? email.trim().toLowerCase() : null;
}

/** A 429 problem answer with `Retry-After`, returned (a thrown problem carries no headers). */
export function tooMany(retryAfterSeconds: number, detail: string): AppResponse {
  const problem = tooManyRequests(null, retryAfterSeconds, detail);
  return {
    status: 429,
    body: JSON.stringify(problem.toJSON()),
    headers: { 'content-type': 'application/problem+json', 'retry-after': String(retryAfterSeconds) },
  };
}

export class LoginThrottle {
  readonly #addresses: MinuteCounter | null;
  readonly #accounts = new Map<string, AccountState>();
  /** Log-ins of each account still being checked: with its failures, never more than the lock allows. */
  readonly #inFlight = new Map<string, number>();
  #nextSweep = 0;

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly now: () => number = Date.now,
  ) {
    this.#addresses = settings.authPerMinute > 0 ? new MinuteCounter(settings.authPerMinute) : null;
  }

  /** A sign-up: limited per address. */
  async signup(address: string, attempt: () => Promise<AppResponse>): Promise<AppResponse> {
    return this.#refuseAddress(address) ?? attempt();
  }

  /** A log-in: limited per address and per account; a 401 counts as a failure, a success forgets them. */
  async login(app: CompiledApp, address: string, body: unknown, attempt: () => Promise<AppResponse>): Promise<AppResponse> {
    const refused = this.#refuseAddress(address);
    if (refused) return refused;
    const email = emailOf(body);
    const key = email === null || this.settings.authMaxFailures <= 0 ? null : `${app.applicationId} ${email}`;
    if (key === null) return attempt();
    const now = this.now();
    const state = this.#accounts.get(key);
    if (state && state.lockedUntil > now) {
      return tooMany(Math.ceil((state.lockedUntil - now) / 1000), 'Too many failed log-ins for this account.');
    }
    // Guesses sent all at once would all be checked before the first failure counts.
    const failures = state && now - state.firstFailureAt <= FAILURE_WINDOW_MS ? state.failures : 0;
    const inFlight = this.#inFlight.get(key) ?? 0;
    if (failures + inFlight >= this.settings.authMaxFailures) return tooMany(1, 'Too many log-ins to this account at once.');
    this.#inFlight.set(key, inFlight + 1);
    try {
      const response = await attempt();
      this.#accounts.delete(key);
      return response;
    } catch (error) {
      if (error instanceof Problem && error.status === 401) this.#failed(key);
      throw error;
    } finally {
      const left = (this.#inFlight.get(key) ?? 1) - 1;
      if (left > 0) this.#inFlight.set(key, left);
      else this.#inFlight.delete(key);
    }
  }

  /** The 429 of an address past its attempts of the minute, or null. */
  #refuseAddress(address: string): AppResponse | null {
    const count = this.#addresses?.hit(addressKey(address), this.now());
    return count?.exceeded ? tooMany(count.resetSeconds, `More than ${count.limit} sign-up and log-in attempts from this address in a minute.`) : null;
  }

  #failed(key: string): void {
    const now = this.now();
    if (now >= this.#nextSweep) this.#sweep(now);
    let state = this.#accounts.get(key);
    if (!state) {
      if (this.#accounts.size >= MAX_ACCOUNTS) this.#accounts.clear();
      state = { failures: 0, firstFailureAt: now, lockedUntil: 0, locks: 0, lastSeenAt: now };
      this.#accounts.set(key, state);
    }
    if (now - state.firstFailureAt > FAILURE_WINDOW_MS) {
      state.failures = 0;
      state.firstFailureAt = now;
    }
    state.failures += 1;
    state.lastSeenAt = now;
    if (state.failures >= this.settings.authMaxFailures) {
      state.locks += 1;
      const seconds = Math.min(MAX_LOCK_SECONDS, this.settings.authLockoutSeconds * 2 ** (state.locks - 1));
      state.lockedUntil = now + seconds * 1000;
      state.failures = 0;
      state.firstFailureAt = now;
    }
  }

  /** Every few minutes, accounts quiet for an hour and no longer locked are forgotten. */
  #sweep(now: number): void {
    for (const [key, state] of this.#accounts) {
      if (now - Math.max(state.lastSeenAt, state.lockedUntil) > MEMORY_MS) this.#accounts.delete(key);
    }
    this.#nextSweep = now + 5 * 60_000;
  }
}
