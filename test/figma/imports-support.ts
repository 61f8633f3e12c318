/**
 * A local double of the Figma REST API for the import tests and the bench. Figma itself cannot be
 * reached from here (and a test must not depend on it), so this server answers in Figma's shape:
 * `GET /v1/files/{key}` with the file's JSON when `X-Figma-Token` is the good token, 403
 * `{status: 403, err: "Invalid token"}` otherwise, 404 `{status: 404, err: "Not found"}` for an
 * unknown key; `GET /v1/files/{key}/images` → `{error, status, meta: {images: {imageRef: url}}}`,
 * the URLs pointing back at this server, which serves the image bytes (without a token, as
 * Figma's CDN does).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync, strFromU8 } from 'fflate';
import type { ApiClient } from '../support/client.ts';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'figma');
export const GOOD_TOKEN = 'figd_test-double-token-0123456789';

/** A 2×2 red PNG. */
export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000002000000020802000000fdd49a730000001049444154789c63f8cfc000440c100a001fee03fd8b5f14d40000000049454e44ae426082',
  'hex',
);

export interface FigmaDouble {
  url: string;
  /** Every request as received: path and the token header. */
  requests: Array<{ path: string; token: string | undefined }>;
  close(): Promise<void>;
}

export interface DoubleFile {
  /** The body of GET /v1/files/{key}. */
  json: Buffer;
  /** imageRef → bytes served for it. */
  images?: Record<string, Buffer>;
}

export async function startFigmaDouble(files: Record<string, DoubleFile>): Promise<FigmaDouble> {
  const requests: FigmaDouble['requests'] = [];
  let origin = '';
  const server: Server = createServer((request: IncomingMessage, response) => {
    const path = new URL(request.url ?? '/', 'http://double').pathname;
    const token = request.headers['x-figma-token'] as string | undefined;
    requests.push({ path, token });
    const send = (status: number, body: unknown, type = 'application/json') => {
      const bytes = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
      response.writeHead(status, { 'content-type': type, 'content-length': bytes.length });
      response.end(bytes);
    };
    const image = /^\/images\/([^/]+)\/([^/]+)$/.exec(path);
    if (image) {
      const bytes = files[decodeURIComponent(image[1])]?.images?.[decodeURIComponent(image[2])];
      return bytes ? send(200, bytes, 'image/png') : send(404, { status: 404, err: 'Not found' });
    }
    const match = /^\/v1\/files\/([^/]+)(\/images)?$/.exec(path);
    if (!match) return send(404, { status: 404, err: 'Not found' });
    if (token !== GOOD_TOKEN) return send(403, { status: 403, err: 'Invalid token' });
    const key = decodeURIComponent(match[1]);
    const file = files[key];
    if (!file) return send(404, { status: 404, err: 'Not found' });
    if (!match[2]) return send(200, file.json);
    const images = Object.fromEntries(Object.keys(file.images ?? {}).map((ref) => [ref, `${origin}/images/${encodeURIComponent(key)}/${encodeURIComponent(ref)}`]));
    return send(200, { error: false, status: 200, meta: { images } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: origin, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export const fixtureBytes = (name: string): Buffer => readFileSync(join(FIXTURES, name));

type Node = { id?: string; type?: string; children?: Node[]; fills?: unknown[] };

/**
 * The fixture with an IMAGE fill (`imageRef`) added to the first rectangle of its first
 * top-level frame: a real file gives the image path something to carry. Answers the JSON and
 * the frame's id.
 */
export function withImageFill(json: Buffer, imageRef: string): { json: Buffer; frameId: string } {
  const file = JSON.parse(json.toString('utf8')) as { document: Node };
  for (const page of file.document.children ?? []) {
    for (const frame of page.children ?? []) {
      if (frame.type !== 'FRAME') continue;
      const rectangle = findRectangle(frame);
      if (!rectangle) continue;
      rectangle.fills = [...(rectangle.fills ?? []), { blendMode: 'NORMAL', type: 'IMAGE', scaleMode: 'FILL', imageRef }];
      return { json: Buffer.from(JSON.stringify(file)), frameId: frame.id! };
    }
  }
  throw new Error('no frame with a rectangle in the fixture');
}

function findRectangle(node: Node): Node | null {
  for (const child of node.children ?? []) {
    if (child.type === 'RECTANGLE') return child;
    const found = findRectangle(child);
    if (found) return found;
  }
  return null;
}

export interface ImportReply {
  id: string;
  projectId: string;
  fileKey: string | null;
  name: string;
  version: string | null;
  lastModified: string | null;
  frames: Array<{ nodeId: string; name: string; page: string; width: number; height: number }>;
  createdAt: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** GET …/code/{jobId} as bytes: status, content type, body. */
export async function getCode(api: ApiClient, projectId: string, importId: string, jobId: string): Promise<{ status: number; type: string; bytes: Buffer }> {
  const response = await fetch(`${api.baseUrl}/v1/projects/${projectId}/figma/imports/${importId}/code/${jobId}`, {
    headers: { authorization: `Bearer ${api.token}`, 'x-svc-api-client': api.apiKey ?? '' },
  });
  return { status: response.status, type: response.headers.get('content-type') ?? '', bytes: Buffer.from(await response.arrayBuffer()) };
}

/** Polls the job's zip until it is no longer 409 (running); answers the last reply. */
export async function waitForCode(api: ApiClient, projectId: string, importId: string, jobId: string, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await getCode(api, projectId, importId, jobId);
    if (reply.status !== 409) return reply;
    if (Date.now() > deadline) throw new Error('the code generation job is still running');
    await sleep(20);
  }
}

/** The zip's files, text ones as strings. */
export function unzipSite(bytes: Buffer): Map<string, Uint8Array> {
  return new Map(Object.entries(unzipSync(new Uint8Array(bytes))));
}

export const text = (bytes: Uint8Array | undefined): string => (bytes ? strFromU8(bytes) : '');
