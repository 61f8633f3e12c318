/**
 * Rate limits of generated applications (DESIGN §6), counted in this process's memory: with
 * several processes behind a load balancer each one counts its own share of the requests.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Problem } from '../../errors.ts';
import type { Caller } from '../caller.ts';

/** What the runtime limits, from the configuration (0 turns a limit off). */
export interface RateLimitSettings {
  /** Generated-app requests per minute per address, signed-in end user or API client. */
  appPerMinute: number;
  /** End-user sign-up and log-in attempts per minute per address. */
  authPerMinute: number;
  /** Failed log-ins of one account (within 15 minutes) before it is locked. */
  authMaxFailures: number;
  /** The first lock of an account, seconds; each further lock doubles it. */
  authLockoutSeconds: number;
}

export const NO_RATE_LIMITS: RateLimitSettings = { appPerMinute: 0, authPerMinute: 0, authMaxFailures: 0, authLockoutSeconds: 60 };

const WINDOW_MS = 60_000;
/** Keys kept at most: past it (a flood from more addresses than this in a minute) the counts start over. */
const MAX_KEYS = 100_000;

/** What one counted request left of its key's minute. */
export interface WindowCount {
  limit: number;
  remaining: number;
  /** Seconds until the key's window ends (at least 1). */
  resetSeconds: number;
  exceeded: boolean;
}

/** Requests per key in one-minute windows, each starting at its key's first request. */
export class MinuteCounter {
  readonly #windows = new Map<string, { count: number; endsAt: number }>();
  #nextSweep = 0;

  constructor(readonly limit: number) {}

  hit(key: string, now = Date.now()): WindowCount {
    if (now >= this.#nextSweep) this.#sweep(now);
    let window = this.#windows.get(key);
    if (!window || window.endsAt <= now) {
      if (this.#windows.size >= MAX_KEYS) this.#windows.clear();
      window = { count: 0, endsAt: now + WINDOW_MS };
      this.#windows.set(key, window);
    }
    window.count += 1;
    return {
      limit: this.limit,
      remaining: Math.max(0, this.limit - window.count),
      resetSeconds: Math.max(1, Math.ceil((window.endsAt - now) / 1000)),
      exceeded: window.count > this.limit,
    };
  }

  /** Once a minute, the windows that ended are dropped. */
  #sweep(now: number): void {
    for (const [key, window] of this.#windows) if (window.endsAt <= now) this.#windows.delete(key);
    this.#nextSweep = now + WINDOW_MS;
  }
}

/** The 429 answer: a problem body, `Retry-After` set on the reply before it is thrown. */
export function tooManyRequests(reply: FastifyReply | null, retryAfterSeconds: number, detail: string): Problem {
  reply?.header('retry-after', String(retryAfterSeconds));
  return new Problem(429, `${detail} Retry in ${retryAfterSeconds} s.`);
}

/**
 * What an address is counted as: an IPv4 address (also when IPv4-mapped), or the /64 network of
 * an IPv6 address, since one client commonly holds a whole /64.
 */
export function addressKey(ip: string): string {
  if (!ip.includes(':')) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1];
  const [head, tail] = ip.split('%')[0].split('::');
  const left = head ? head.split(':') : [];
  const right = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

function hasCredentials(request: FastifyRequest): boolean {
  return request.headers.authorization !== undefined || request.headers['x-svc-api-client'] !== undefined;
}

function keyOf(caller: Caller, request: FastifyRequest): string {
  if (caller.kind === 'user') return `u ${caller.user.id}`;
  if (caller.kind === 'admin') return `c ${String(request.headers['x-svc-api-client'])}`;
  return `a ${addressKey(request.ip)}`;
}

/**
 * `APPBUILDER_APP_RATE_LIMIT` requests per minute: per signed-in end user (their token, verified
 * once by the request's own authentication), per API client for builders acting as
 * administrators, per address otherwise. Every answer carries `X-RateLimit-Limit`,
 * `X-RateLimit-Remaining` and `X-RateLimit-Reset`; past the limit, 429 with `Retry-After`.
 */
export class AppRateLimits {
  readonly #counter: MinuteCounter | null;

  constructor(perMinute: number) {
    this.#counter = perMinute > 0 ? new MinuteCounter(perMinute) : null;
  }

  /** A request without credentials counts against its address, before anything is looked up for it. */
  anonymous(request: FastifyRequest, reply: FastifyReply): void {
    if (this.#counter && !hasCredentials(request)) this.#count(`a ${addressKey(request.ip)}`, reply);
  }

  /** A request with credentials for a version not served (each one is a look-up) counts against its address. */
  unserved(request: FastifyRequest, reply: FastifyReply): void {
    if (this.#counter && hasCredentials(request)) this.#count(`a ${addressKey(request.ip)}`, reply);
  }

  /**
   * Authenticates a request with credentials (`resolve`) and counts it against whom they name;
   * credentials that are refused count against the address.
   */
  async caller(request: FastifyRequest, reply: FastifyReply, resolve: () => Promise<Caller>): Promise<Caller> {
    if (!this.#counter || !hasCredentials(request)) return resolve();
    let caller: Caller;
    try {
      caller = await resolve();
    } catch (error) {
      this.#count(`a ${addressKey(request.ip)}`, reply);
      throw error;
    }
    this.#count(keyOf(caller, request), reply);
    return caller;
  }

  #count(key: string, reply: FastifyReply): void {
    const count = this.#counter!.hit(key);
    reply.header('x-ratelimit-limit', count.limit);
    reply.header('x-ratelimit-remaining', count.remaining);
    reply.header('x-ratelimit-reset', count.resetSeconds);
    if (count.exceeded) throw tooManyRequests(reply, count.resetSeconds, `More than ${count.limit} requests in a minute.`);
  }
}
