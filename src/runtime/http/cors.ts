// Cross-origin calls to a generated app (docs/cors-and-frontend.md): the app variable
// `CORS_ORIGINS` (a comma list of origins, or `*`) names the web origins whose pages may call the
// app's API. Only on the app's own origin: on the shared path form the service adds no CORS header
// (answer-headers.ts), so no page of another origin can read an answer there. None set: same
// origin only. Cross-origin callers authenticate with the bearer header, never cookies: no
// `Access-Control-Allow-Credentials` is sent (and `*` could not carry it anyway).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppValuesSource } from '../../secrets/app-values.ts';

export const CORS_VARIABLE = 'CORS_ORIGINS';
/** How long a browser may keep a preflight's answer, in seconds. */
export const PREFLIGHT_MAX_AGE = 600;
/** The request headers a cross-origin page may send: what the generated API reads. */
export const CORS_ALLOW_HEADERS = 'authorization, content-type, if-match, if-none-match, last-event-id';
/** The answer headers a cross-origin page may read besides the simple ones. */
const CORS_EXPOSE_HEADERS = 'etag, location, content-disposition, retry-after, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset';

export interface CorsPolicy {
  any: boolean;
  origins: ReadonlySet<string>;
}

const parsed = new Map<string, CorsPolicy | null>();

/** `CORS_ORIGINS` as a policy (null: none set); an origin is compared as the browser sends it, without a trailing slash. */
export function corsPolicy(value: string | undefined): CorsPolicy | null {
  if (value === undefined || value.trim() === '') return null;
  let policy = parsed.get(value);
  if (policy === undefined) {
    const entries = value.split(',').map((entry) => entry.trim().replace(/\/+$/, '').toLowerCase()).filter((entry) => entry !== '');
    policy = entries.length === 0 ? null : { any: entries.includes('*'), origins: new Set(entries.filter((entry) => entry !== '*')) };
    if (parsed.size > 1000) parsed.clear();
    parsed.set(value, policy);
  }
  return policy;
}

/** The app's policy now: its variables are cached per application and forgotten when they change (secrets/app-values.ts). */
export async function appCorsPolicy(values: AppValuesSource | undefined, applicationId: string): Promise<CorsPolicy | null> {
  if (!values) return null;
  return corsPolicy((await values.forApplication(applicationId)).env[CORS_VARIABLE]);
}

/** The `Access-Control-Allow-Origin` value for a request's `Origin`, or null when that origin is not allowed. */
export function allowedOrigin(policy: CorsPolicy | null, origin: string | undefined): string | null {
  if (!policy || origin === undefined) return null;
  if (policy.any) return '*';
  return policy.origins.has(origin.toLowerCase()) ? origin : null;
}

/** The CORS headers of an answer on the app's own origin (set before the handler runs, so error answers carry them too). */
export function setCorsHeaders(request: FastifyRequest, reply: FastifyReply, policy: CorsPolicy | null): void {
  if (!policy) return;
  if (!policy.any) reply.header('vary', 'Origin');
  const allow = allowedOrigin(policy, request.headers.origin);
  if (allow === null) return;
  reply.header('access-control-allow-origin', allow);
  reply.header('access-control-expose-headers', CORS_EXPOSE_HEADERS);
}

/**
 * A preflight (`OPTIONS`) of a route the version serves: 204 with `Allow`, and for an allowed
 * origin the methods, headers and max age the browser asks about. An origin not allowed gets no
 * CORS header, so the browser refuses the call.
 */
export function answerPreflight(request: FastifyRequest, reply: FastifyReply, policy: CorsPolicy | null, allow: string[]): FastifyReply {
  const methods = [...allow, 'OPTIONS'].join(', ');
  reply.header('allow', methods);
  if (allowedOrigin(policy, request.headers.origin) !== null) {
    reply.header('access-control-allow-methods', methods);
    reply.header('access-control-allow-headers', CORS_ALLOW_HEADERS);
    reply.header('access-control-max-age', String(PREFLIGHT_MAX_AGE));
  }
  return reply.status(204).send();
}
