/**
 * What a generated app's answer may carry (docs/security.md, "Origins"). On the shared origin
 * (the path form `/apps/{id}/…`, beside the console and every other customer's app) an answer is
 * JSON or plain text and carries only the headers an API answer needs: a builder's `set-cookie`,
 * `service-worker-allowed`, `content-security-policy`, CORS, `clear-site-data`, reporting or
 * HSTS headers there would act on the console and the other apps. On the app's own origin the
 * builder's headers pass, except hop-by-hop ones and cookies scoped beyond that origin.
 */

/** Every answer on the shared origin: nothing is rendered, run or sniffed as active content. */
export const SHARED_ORIGIN_CSP = "sandbox; default-src 'none'";

/** Headers about the connection, not the answer (RFC 9110 §7.6.1), and the framing the server computes. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'content-length']);

/** The headers an API answer on the shared origin may carry (besides `x-…` ones): caching, redirects, retries, paging. */
const SHARED_ALLOWED = new Set([
  'content-type',
  'content-disposition',
  'content-language',
  'cache-control',
  'expires',
  'pragma',
  'etag',
  'last-modified',
  'vary',
  'location',
  'retry-after',
  'link',
  'age',
]);

/**
 * JSON (also `application/problem+json` and the like), NDJSON, plain text, CSV and TypeScript
 * source (the typed client): never rendered as a page, nor run as a script (nosniff).
 */
const SHARED_TYPE = /^(application\/([a-z0-9.+-]+\+)?json|application\/x-ndjson|text\/plain|text\/csv|application\/typescript)\s*(;|$)/i;

export const PLAIN_TEXT = 'text/plain; charset=utf-8';

function hopByHop(name: string): boolean {
  return HOP_BY_HOP.has(name) || name.startsWith('proxy-');
}

/** A builder's content type on the shared origin: kept when JSON or text, else plain text. */
export function sharedContentType(value: string): string {
  return SHARED_TYPE.test(value.trim()) ? value : PLAIN_TEXT;
}

/** A cookie set on the app's own origin stays there: its `Domain` attribute (which would reach sibling hosts) is dropped. */
function hostOnlyCookie(value: string): string {
  return value
    .split(';')
    .filter((part, i) => i === 0 || part.split('=')[0].trim().toLowerCase() !== 'domain')
    .join(';');
}

/**
 * The headers to send for a generated app's answer: names lower-cased, the policy applied, and
 * `x-content-type-options: nosniff` always (on the shared origin also the sandbox CSP).
 * `service` are headers the service itself sets on its own routes (an OpenID flow's state
 * cookie): they pass on either origin, still never hop-by-hop.
 */
export function answerHeaders(headers: Record<string, string> | undefined, onOwnOrigin: boolean, service: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [rawName, value] of Object.entries(headers ?? {})) {
    const name = rawName.toLowerCase();
    if (hopByHop(name) || typeof value !== 'string') continue;
    if (onOwnOrigin) out[name] = name === 'set-cookie' ? hostOnlyCookie(value) : value;
    else if (name === 'content-type') out[name] = sharedContentType(value);
    else if (SHARED_ALLOWED.has(name) || name.startsWith('x-')) out[name] = value;
  }
  for (const [rawName, value] of Object.entries(service)) {
    const name = rawName.toLowerCase();
    if (!hopByHop(name)) out[name] = value;
  }
  out['x-content-type-options'] = 'nosniff';
  if (!onOwnOrigin) out['content-security-policy'] = SHARED_ORIGIN_CSP;
  return out;
}
