// The outbound HTTP client of http.request: connects to the address the guard checked (Host
// header and TLS name kept), follows redirects itself so every hop is checked again, caps the
// response size and parses JSON responses.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { toJson, type JsonValue } from '../../../expressions/index.ts';
import { ActionError } from '../errors.ts';
import { resolveChecked, type ResolvedAddress } from './address-guard.ts';
import { HOPS_HEADER } from './hops.ts';

export const MAX_RESPONSE_BYTES = 1024 * 1024;
export const MAX_REDIRECTS = 5;

export interface GuardedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  timeoutMs: number;
  allow: readonly string[];
  /** Sent as `x-appbuilder-hops` (hops.ts): the count of the request that started the run, plus one. */
  hops: number;
  /** The run's own abort (wall time). */
  signal: AbortSignal;
  /** The largest response body taken (default MAX_RESPONSE_BYTES). */
  maxBytes?: number;
}

export interface HttpResult {
  status: number;
  headers: Record<string, string>;
  body: JsonValue;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers we set ourselves; a builder's value would only confuse the connection (or reset the hop count). */
const OWN_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', HOPS_HEADER]);
/** Credentials that must not follow a redirect to another origin. */
const ORIGIN_BOUND_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

export async function guardedRequest(options: GuardedRequest): Promise<HttpResult> {
  return decode(await guardedFetch(options));
}

/** The same request, answering the body as bytes (other callers of the guard: Figma imports). */
export async function guardedFetch(options: GuardedRequest): Promise<RawResponse> {
  const maxBytes = options.maxBytes ?? MAX_RESPONSE_BYTES;
  const deadline = Date.now() + options.timeoutMs;
  let url = parseUrl(options.url);
  let method = options.method.toUpperCase();
  let headers = Object.fromEntries(
    Object.entries(options.headers).filter(([name]) => !OWN_HEADERS.has(name.toLowerCase())),
  );
  let payload = encodeBody(options.body, headers);

  for (let hop = 0; ; hop++) {
    const target = await beforeDeadline(resolveChecked(url, options.allow), deadline, url);
    const sent = { ...headers, [HOPS_HEADER]: String(options.hops) };
    const response = await send(url, target, method, sent, payload, deadline, options.signal, maxBytes).catch((error: unknown) => {
      // Network failures arrive as ActionErrors; anything else is Node refusing the request itself.
      if (error instanceof ActionError) throw error;
      throw new ActionError(400, 'http_invalid_request', `Invalid http.request: ${(error as Error).message}`);
    });
    const location = response.headers.location;
    if (!REDIRECTS.has(response.status) || !location) return response;
    if (hop >= MAX_REDIRECTS) {
      throw new ActionError(502, 'http_too_many_redirects', `More than ${MAX_REDIRECTS} redirects from ${options.url}.`);
    }
    const next = parseUrl(new URL(location, url).toString());
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
      method = 'GET';
      payload = undefined;
      headers = withoutHeaders(headers, new Set(['content-type']));
    }
    if (next.origin !== url.origin) headers = withoutHeaders(headers, ORIGIN_BOUND_HEADERS);
    url = next;
  }
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ActionError(400, 'http_invalid_url', `Not a valid URL: ${text}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ActionError(400, 'http_invalid_url', `Only http and https URLs are allowed, not ${url.protocol}`);
  }
  return url;
}

/** JSON for objects (content-type set when missing), text as is, nothing for null. */
function encodeBody(body: unknown, headers: Record<string, string>): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  const hasType = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  if (typeof body === 'string') {
    if (!hasType) headers['content-type'] = 'text/plain; charset=utf-8';
    return Buffer.from(body, 'utf8');
  }
  if (!hasType) headers['content-type'] = 'application/json';
  return Buffer.from(JSON.stringify(body), 'utf8');
}

function withoutHeaders(headers: Record<string, string>, names: ReadonlySet<string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.has(name.toLowerCase())));
}

function timeoutError(url: URL): ActionError {
  return new ActionError(504, 'http_timeout', `http.request to ${url.host} timed out.`);
}

async function beforeDeadline<T>(promise: Promise<T>, deadline: number, url: URL): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError(url)), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function send(
  url: URL,
  target: ResolvedAddress,
  method: string,
  headers: Record<string, string>,
  payload: Buffer | undefined,
  deadline: number,
  signal: AbortSignal,
  maxBytes: number,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const secure = url.protocol === 'https:';
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    const req = (secure ? httpsRequest : httpRequest)({
      // The checked address, never the name again: no second DNS answer to trust.
      host: target.address,
      family: target.family,
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method,
      headers: {
        'user-agent': 'appbuilder-actions',
        ...headers,
        host: url.host,
        ...(payload ? { 'content-length': String(payload.length) } : {}),
      },
      // TLS checks the certificate against the name, not the address.
      ...(secure && isIP(hostname) === 0 ? { servername: hostname } : {}),
      agent: false,
      signal,
    });
    const fail = (error: unknown) => {
      clearTimeout(timer);
      if (error instanceof ActionError) return reject(error);
      reject(new ActionError(502, 'http_error', `http.request to ${url.host} failed: ${(error as Error).message}`));
    };
    // Settle first, then tear down: after the response started, Node reports a destroy on
    // the response rather than the request, so we never rely on the 'error' event for these.
    const stop = (error: ActionError) => {
      fail(error);
      req.destroy();
    };
    const timer = setTimeout(() => stop(timeoutError(url)), Math.max(0, deadline - Date.now()));
    req.on('error', fail);
    req.on('response', (res: IncomingMessage) => {
      const declared = Number(res.headers['content-length']);
      if (declared > maxBytes) return stop(tooLarge(url, maxBytes));
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) stop(tooLarge(url, maxBytes));
        else chunks.push(chunk);
      });
      res.on('error', fail);
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: flatHeaders(res), body: Buffer.concat(chunks) });
      });
    });
    req.end(payload);
  });
}

function tooLarge(url: URL, maxBytes: number): ActionError {
  const message = `The response of ${url.host} is larger than ${maxBytes} bytes.`;
  return new ActionError(502, 'http_response_too_large', message);
}

function flatHeaders(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function decode(response: RawResponse): HttpResult {
  const type = response.headers['content-type'] ?? '';
  const text = response.body.toString('utf8');
  let body: JsonValue = text === '' ? null : text;
  if (text !== '' && /[/+]json\b/i.test(type)) {
    try {
      body = toJson(JSON.parse(text));
    } catch {
      throw new ActionError(502, 'http_invalid_json', 'The response says it is JSON but does not parse.');
    }
  }
  return { status: response.status, headers: response.headers, body };
}
