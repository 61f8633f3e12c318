/**
 * States the rate limits of a served version in its OpenAPI document: the limit in the
 * description, the `X-RateLimit-*` headers on every answer, and the 429 answer with `Retry-After`
 * on every operation (http/rate-limits.ts, http/login-throttle.ts).
 */
import type { RateLimitSettings } from '../http/rate-limits.ts';
import type { OpenApiDocument } from './openapi.ts';

type Json = Record<string, unknown>;

const VERBS = ['get', 'put', 'post', 'patch', 'delete'];

const integerHeader = (description: string): Json => ({ description, schema: { type: 'integer', minimum: 0 } });

const HEADERS: Json = {
  'X-RateLimit-Limit': integerHeader('Requests allowed in a minute to this caller (their address, their end user, or their API client).'),
  'X-RateLimit-Remaining': integerHeader('Requests left in the current minute.'),
  'X-RateLimit-Reset': integerHeader('Seconds until the current minute ends.'),
  'Retry-After': integerHeader('Seconds to wait before the next request.'),
};

const headerRef = (name: string): Json => ({ $ref: `#/components/headers/${name}` });

function limitText(limits: RateLimitSettings): string {
  const parts: string[] = [];
  if (limits.appPerMinute > 0) {
    parts.push(
      `Every route answers at most ${limits.appPerMinute} requests a minute to each signed-in end user, each API client acting as administrator, and each address for other requests; ` +
        'answers carry `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`, and past the limit the answer is 429 with `Retry-After`.',
    );
  }
  if (limits.authPerMinute > 0) parts.push(`\`/auth/signup\` and \`/auth/login\` take at most ${limits.authPerMinute} attempts a minute from one address.`);
  if (limits.authMaxFailures > 0) {
    parts.push(
      `After ${limits.authMaxFailures} failed log-ins an account (the email tried) is locked for ${limits.authLockoutSeconds} s, twice as long at each further lock: ` +
        'every log-in to it answers 429 with `Retry-After` until then, and a successful log-in forgets the failures.',
    );
  }
  return parts.length > 0 ? `Rate limits (counted per service process): ${parts.join(' ')}` : '';
}

function isAuthPath(path: string): boolean {
  return path === '/auth/signup' || path === '/auth/login';
}

/** The document with the limits stated; unchanged when no limit is on. */
export function describeRateLimits(document: OpenApiDocument, limits: RateLimitSettings): OpenApiDocument {
  const text = limitText(limits);
  if (!text) return document;
  const appLimit = limits.appPerMinute > 0;
  const authLimit = limits.authPerMinute > 0 || limits.authMaxFailures > 0;
  const paths: Record<string, Json> = {};
  for (const [path, item] of Object.entries(document.paths)) {
    const limited = appLimit || (authLimit && isAuthPath(path));
    paths[path] = limited ? Object.fromEntries(Object.entries(item).map(([verb, op]) => [verb, VERBS.includes(verb) ? withLimit(op as Json, appLimit) : op])) : item;
  }
  const info = document.info as Json;
  const components = document.components as Json;
  return {
    ...document,
    info: { ...info, description: `${String(info.description ?? '')}\n\n${text}` },
    paths,
    components: {
      ...components,
      headers: { ...(components.headers as Json | undefined), ...HEADERS },
      responses: {
        ...(components.responses as Json),
        Problem429: {
          description: 'Too many requests: wait `Retry-After` seconds.',
          headers: { 'Retry-After': headerRef('Retry-After'), ...(appLimit ? rateHeaders() : {}) },
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
        },
      },
    },
  };
}

function rateHeaders(): Json {
  return Object.fromEntries(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'].map((name) => [name, headerRef(name)]));
}

/** One operation with the 429 answer and, when every answer is counted, the headers on its other answers. */
function withLimit(operation: Json, appLimit: boolean): Json {
  const responses = operation.responses as Json;
  const described = Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const answer = response as Json;
      if (!appLimit || '$ref' in answer) return [status, answer];
      return [status, { ...answer, headers: { ...(answer.headers as Json | undefined), ...rateHeaders() } }];
    }),
  );
  return { ...operation, responses: { ...described, 429: { $ref: '#/components/responses/Problem429' } } };
}
