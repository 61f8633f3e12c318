import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadStorageConfig, type StorageConfig } from '../../src/files/config.ts';
import type { ApiClient } from '../support/client.ts';

export const MiB = 1024 * 1024;

/** A storage config over a fresh temp directory (removed by `cleanup`). */
export function tempStorage(overrides: Partial<StorageConfig> = {}): { storage: StorageConfig; dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'appbuilder-files-'));
  const storage = { ...loadStorageConfig({}, dir), dir, ...overrides };
  return { storage, dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Every regular file under `dir` (blobs and temp files): what is on disk. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    let names: string[];
    try {
      names = readdirSync(at);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(path);
    }
  };
  walk(dir);
  return out;
}

export interface UploadAnswer {
  status: number;
  body: Record<string, unknown> & { id?: string; errors?: Array<{ path: string; message: string }> };
  headers: Headers;
}

/** A raw upload with the client's credentials. */
export async function uploadRaw(
  api: ApiClient,
  query: string,
  body: Uint8Array | FormData | ReadableStream<Uint8Array>,
  headers: Record<string, string> = { 'content-type': 'application/octet-stream' },
): Promise<UploadAnswer> {
  const response = await fetch(`${api.baseUrl}/v1/storage/files?${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'x-svc-api-client': api.apiKey ?? '', ...headers },
    body,
    // Streamed request bodies need the half-duplex flag in Node's fetch.
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {}, headers: response.headers };
}

/** A GET with the client's credentials, returning the raw bytes. */
export async function getBytes(api: ApiClient, path: string, headers: Record<string, string> = {}): Promise<{ status: number; bytes: Buffer; headers: Headers }> {
  const response = await fetch(`${api.baseUrl}${path}`, { headers: { authorization: `Bearer ${api.token}`, 'x-svc-api-client': api.apiKey ?? '', ...headers } });
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()), headers: response.headers };
}
