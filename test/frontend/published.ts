/**
 * Shared steps of the end-to-end frontend tests over the real server: publish an
 * application and wait until its API is served, and download its frontend bundle
 * through spec endpoint 8 (following 202 + Retry-After).
 */
import type { TestPlatform } from '../support/platform.ts';
import type { Tenant } from '../support/tenant.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `{appsPath}/{id}/api/v{serverVersion}`: the path of a served version. */
export const apiPath = (t: TestPlatform, applicationId: string, serverVersion: string): string =>
  `${t.config.appsPath}/${applicationId}/api/v${serverVersion}`;

/**
 * Publishes (the current serverVersion, or `serverVersion`) and waits until
 * `{app_url}/api/v{version}/{probe}` answers anything but 404.
 */
export async function publishAndWait(
  t: TestPlatform,
  tenant: Tenant,
  applicationId: string,
  serverVersion: string,
  probe = 'toDos',
  timeoutMs = 60_000,
): Promise<void> {
  const publish = await tenant.api.post(`/v1/applications/${applicationId}/publish`, { serverVersion });
  if (publish.status >= 300) throw new Error(`publish answered ${publish.status}: ${publish.text}`);
  const url = `${t.baseUrl}${apiPath(t, applicationId, serverVersion)}/${probe}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(url);
    await response.arrayBuffer();
    if (response.status !== 404) return;
    if (Date.now() > deadline) throw new Error(`${url} is still 404 after ${timeoutMs} ms: the deployment did not finish.`);
    await sleep(250);
  }
}

export interface Download {
  /** Every answer before the 200 (202 while the job builds). */
  statuses: number[];
  headers: Headers;
  bytes: Uint8Array;
}

/** GET …/frontendBundle until it answers 200; any answer but 200/202 throws. */
export async function downloadBundle(tenant: Tenant, applicationId: string, attempts = 60): Promise<Download> {
  const headers = { authorization: `Bearer ${tenant.api.token}`, 'x-svc-api-client': tenant.api.apiKey ?? '' };
  const statuses: number[] = [];
  for (let attempt = 0; attempt < attempts; attempt++) {
    const response = await fetch(`${tenant.api.baseUrl}/v1/applications/${applicationId}/frontendBundle`, { headers });
    statuses.push(response.status);
    if (response.status === 200) return { statuses, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) };
    const text = await response.text();
    if (response.status !== 202) throw new Error(`frontendBundle answered ${response.status}: ${text}`);
    await sleep(Math.min(1000, Number(response.headers.get('retry-after') ?? '1') * 1000));
  }
  throw new Error(`The frontend bundle was not built after ${attempts} attempts (${statuses.join(', ')}).`);
}
