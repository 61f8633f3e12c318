// Attachments and specifications over HTTP, for the tests and the bench.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { ApiClient } from '../support/client.ts';

const here = dirname(fileURLToPath(import.meta.url));
export const FIXTURES = join(here, '..', 'fixtures');

export const fixture = (path: string): Buffer => readFileSync(join(FIXTURES, path));

export interface AttachmentReply {
  id: string;
  projectId: string;
  name: string;
  contentType: string;
  size: number;
  sha256: string;
  kind: string;
  createdAt: string;
  createdBy: { type: string; id: string } | null;
}

export interface SpecificationReply {
  id: string;
  projectId: string;
  name: string;
  attachmentIds: string[];
  status: string;
  errorMessage?: string;
  content: Record<string, unknown> | null;
  provenance: Record<string, { attachmentId: string; locator: string }>;
  warnings: Array<{ message: string; attachmentId?: string; locator?: string }>;
  summary: Record<string, number> | null;
}

/** Uploads `bytes` raw as `name`; answers the status and body. */
export async function uploadAttachment(
  api: ApiClient,
  projectId: string,
  name: string | null,
  bytes: Uint8Array | FormData,
  contentType = 'application/octet-stream',
): Promise<{ status: number; body: AttachmentReply & { errors?: Array<{ path: string; message: string }> }; headers: Headers }> {
  const query = name === null ? '' : `?name=${encodeURIComponent(name)}`;
  const response = await fetch(`${api.baseUrl}/v1/projects/${projectId}/attachments${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'x-svc-api-client': api.apiKey ?? '', ...(bytes instanceof FormData ? {} : { 'content-type': contentType }) },
    body: bytes,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {}, headers: response.headers };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the specification is no longer queued or running; answers it. */
export async function settledSpecification(api: ApiClient, projectId: string, id: string, timeoutMs = 120_000): Promise<SpecificationReply> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await api.get<SpecificationReply>(`/v1/projects/${projectId}/specifications/${id}`);
    if (reply.status !== 200) throw new Error(`GET specification answered ${reply.status}: ${reply.text}`);
    if (reply.body.status !== 'queued' && reply.body.status !== 'running') return reply.body;
    if (Date.now() > deadline) throw new Error(`specification still ${reply.body.status}`);
    await sleep(25);
  }
}

/** Uploads the fixtures, creates a specification from them and waits for it. */
export async function specificationFrom(api: ApiClient, projectId: string, files: string[]): Promise<SpecificationReply> {
  const ids: string[] = [];
  for (const file of files) {
    const uploaded = await uploadAttachment(api, projectId, file.split('/').pop()!, fixture(file));
    if (uploaded.status !== 201) throw new Error(`upload of ${file} answered ${uploaded.status}`);
    ids.push(uploaded.body.id);
  }
  const created = await api.post<{ id: string; status: string; jobId: string }>(`/v1/projects/${projectId}/specifications`, { attachmentIds: ids });
  if (created.status !== 202) throw new Error(`create specification answered ${created.status}: ${created.text}`);
  return settledSpecification(api, projectId, created.body.id);
}
