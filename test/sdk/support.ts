import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { BOOTSTRAP, type TestPlatform } from '../support/platform.ts';
import { ApiClient } from '../support/client.ts';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const run = promisify(execFile);
export const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);

/** A new customer's API client credentials (as a user of the SDK holds them). */
export async function customerCredentials(t: TestPlatform, name: string): Promise<{ apiKey: string; secret: string }> {
  const admin = await ApiClient.login(t.baseUrl, { apiKey: BOOTSTRAP.id, secret: BOOTSTRAP.secret });
  const customer = await admin.post<{ apiClient: { apiKey: string; secret: string } }>('/v1/customers', { name });
  if (customer.status !== 201) throw new Error(`customer: ${customer.status} ${customer.text}`);
  return customer.body.apiClient;
}
