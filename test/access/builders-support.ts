// Builders in tests: one made through the API by the customer's own client (an owner), with a
// token, and an ApiClient that sends that token as the bearer with the customer's key.
import { ApiClient } from '../support/client.ts';

export interface TestBuilder {
  id: string;
  tokenId: string;
  token: string;
  api: ApiClient;
}

let counter = 0;

export async function addBuilder(
  owner: ApiClient,
  role: 'viewer' | 'editor' | 'admin' | 'owner',
  projectIds: string[] | null = null,
  name = `${role} builder`,
): Promise<TestBuilder> {
  counter += 1;
  const created = await owner.post<{ id: string }>('/v1/builders', { name, email: `${role}.${counter}.${Date.now()}@example.com`, role, projectIds });
  if (created.status !== 201) throw new Error(`createBuilder answered ${created.status}: ${created.text}`);
  const token = await tokenFor(owner, created.body.id);
  return { id: created.body.id, ...token };
}

export async function tokenFor(owner: ApiClient, builderId: string, body: Record<string, unknown> = {}): Promise<Omit<TestBuilder, 'id'>> {
  const reply = await owner.post<{ id: string; token: string }>(`/v1/builders/${builderId}/tokens`, body);
  if (reply.status !== 201) throw new Error(`createBuilderToken answered ${reply.status}: ${reply.text}`);
  const api = new ApiClient(owner.baseUrl, owner.apiKey);
  api.token = reply.body.token;
  return { tokenId: reply.body.id, token: reply.body.token, api };
}
