/**
 * The Figma REST client (DESIGN §14): the file (`GET /v1/files/{key}`), the URLs of its image
 * fills (`GET /v1/files/{key}/images`) and the images themselves. Every request goes through the
 * outbound-address guard of the `http.request` effect (runtime/actions/http/), so private and
 * special-purpose addresses are refused unless APPBUILDER_HTTP_ALLOW lists them (tests list
 * 127.0.0.1 for their local double of Figma). Figma's refusals (a bad token, an unknown file)
 * become 422 problems carrying Figma's own message; the token never appears in one.
 */
import { unprocessable, type ProblemDetail } from '../errors.ts';
import { redactText } from '../secrets/redaction.ts';
import { ActionError } from '../runtime/actions/errors.ts';
import { allowListFromEnv } from '../runtime/actions/http/address-guard.ts';
import { guardedFetch, type RawResponse } from '../runtime/actions/http/client.ts';

export const DEFAULT_FIGMA_API_URL = 'https://api.figma.com';

/** A Figma file's JSON is read whole; at most this many bytes (the attachments' limit, DESIGN §13). */
export const FIGMA_FILE_MAX_BYTES = 25 * 1024 * 1024;

/** Image fills taken per import, each at most IMAGE_MAX_BYTES, together at most IMAGES_MAX_TOTAL_BYTES; the rest render as placeholders. */
export const IMAGE_LIMITS = { count: 100, bytes: 5 * 1024 * 1024, totalBytes: 50 * 1024 * 1024 };

const FILE_TIMEOUT_MS = 60_000;
const IMAGE_TIMEOUT_MS = 20_000;
/** Images downloaded at the same time. */
const IMAGE_CONCURRENCY = 4;

export interface FigmaClientOptions {
  /** APPBUILDER_FIGMA_API_URL (default the public Figma API). */
  apiUrl?: string;
  /** Hosts and networks the guard lets through although private (default APPBUILDER_HTTP_ALLOW). */
  allow?: readonly string[];
}

export interface FigmaImage {
  imageRef: string;
  bytes: Uint8Array;
  contentType: string;
}

/** The Figma API base URL from the environment, read when used so a test can point it at its double. */
export function figmaApiUrl(env: NodeJS.ProcessEnv = process.env): string {
  return (env.APPBUILDER_FIGMA_API_URL || DEFAULT_FIGMA_API_URL).replace(/\/+$/, '');
}

export class FigmaClient {
  private readonly apiUrl: string;
  private readonly allow: readonly string[];

  constructor(
    private readonly token: string,
    options: FigmaClientOptions = {},
  ) {
    this.apiUrl = (options.apiUrl ?? figmaApiUrl()).replace(/\/+$/, '');
    this.allow = options.allow ?? allowListFromEnv();
  }

  /** The file's JSON text (the caller parses it). */
  async file(fileKey: string): Promise<Buffer> {
    const response = await this.get(`/v1/files/${encodeURIComponent(fileKey)}`, FIGMA_FILE_MAX_BYTES, FILE_TIMEOUT_MS, true);
    this.refuseFailure(response, fileKey);
    return response.body;
  }

  /** imageRef → download URL of every image fill of the file. */
  async imageUrls(fileKey: string): Promise<Map<string, string>> {
    const response = await this.get(`/v1/files/${encodeURIComponent(fileKey)}/images`, 4 * 1024 * 1024, FILE_TIMEOUT_MS, true);
    this.refuseFailure(response, fileKey);
    const body = parseJson(response.body) as { meta?: { images?: Record<string, unknown> } } | null;
    const images = body?.meta?.images ?? {};
    const urls = new Map<string, string>();
    for (const [ref, url] of Object.entries(images)) if (typeof url === 'string' && url !== '') urls.set(ref, url);
    return urls;
  }

  /**
   * Downloads the images (a few at a time), within IMAGE_LIMITS; an image that cannot be had
   * (refused address, error, too large, not an image) is left out, so it renders as a placeholder.
   */
  async images(urls: Map<string, string>): Promise<FigmaImage[]> {
    const queue = [...urls].slice(0, IMAGE_LIMITS.count);
    const taken: FigmaImage[] = [];
    let total = 0;
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [imageRef, url] = next;
        // The images live elsewhere (Figma's CDN): no token is sent there.
        const response = await this.fetch(url, {}, IMAGE_LIMITS.bytes, IMAGE_TIMEOUT_MS).catch(() => null);
        if (!response || response.status !== 200) continue;
        const contentType = (response.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
        if (!contentType.startsWith('image/')) continue;
        if (total + response.body.length > IMAGE_LIMITS.totalBytes) continue;
        total += response.body.length;
        taken.push({ imageRef, bytes: new Uint8Array(response.body), contentType });
      }
    };
    await Promise.all(Array.from({ length: IMAGE_CONCURRENCY }, worker));
    return taken.sort((a, b) => (a.imageRef < b.imageRef ? -1 : 1));
  }

  private get(path: string, maxBytes: number, timeoutMs: number, authenticated: boolean): Promise<RawResponse> {
    const headers: Record<string, string> = { accept: 'application/json', ...(authenticated ? { 'x-figma-token': this.token } : {}) };
    return this.fetch(`${this.apiUrl}${path}`, headers, maxBytes, timeoutMs);
  }

  private async fetch(url: string, headers: Record<string, string>, maxBytes: number, timeoutMs: number): Promise<RawResponse> {
    try {
      return await guardedFetch({
        method: 'GET',
        url,
        headers: { 'user-agent': 'appbuilder-figma', ...headers },
        body: undefined,
        timeoutMs,
        allow: this.allow,
        hops: 0,
        signal: AbortSignal.timeout(timeoutMs),
        maxBytes,
      });
    } catch (error) {
      // The guard's refusals, timeouts and network failures: the caller cannot import, say why.
      const message = error instanceof ActionError ? error.message.replace(/^http\.request/, 'The request') : `The request to ${new URL(url).host} failed.`;
      throw unprocessable(`Could not read from Figma: ${this.redact(message)}`, [{ path: '/fileKey', message: this.redact(message) }]);
    }
  }

  /** Figma answers `{status, err}` (or `{message}`) on a refusal: 422 with its message. */
  private refuseFailure(response: RawResponse, fileKey: string): void {
    if (response.status >= 200 && response.status < 300) return;
    const body = parseJson(response.body) as { err?: unknown; message?: unknown } | null;
    const said = typeof body?.err === 'string' ? body.err : typeof body?.message === 'string' ? body.message : `status ${response.status}`;
    const message = this.redact(said.slice(0, 500));
    const detail: ProblemDetail =
      response.status === 403 || response.status === 401
        ? { path: '/tokenSecret', message: `Figma refused the token: ${message}` }
        : { path: '/fileKey', message: `Figma answered ${response.status} for file ${fileKey}: ${message}` };
    throw unprocessable(`Figma answered ${response.status}: ${message}`, [detail]);
  }

  private redact(text: string): string {
    return this.token ? redactText(text, [this.token]) : text;
  }
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
}
