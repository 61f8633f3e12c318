// What the two benches' setups share: the service under test as main.ts sees it, the seed's size,
// and signing an end user up through the generated API.
import type { CompiledApp } from '../../src/runtime/compiled-app.ts';
import type { TestPlatform } from '../../test/support/platform.ts';

export interface EndUser {
  id: string;
  token: string;
  todoIds: string[];
}

export interface BenchService {
  t: TestPlatform;
  app: CompiledApp;
  /** `http://127.0.0.1:port/apps/{id}/api/v{version}` */
  apiUrl: string;
  /** End users signed up through the API, with their to-dos. */
  users: EndUser[];
  close(): Promise<void>;
}

export interface SeedSize {
  users: number;
  todosPerUser: number;
}

/** Signs up `user{i}@bench.test` at `{apiUrl}/auth/signup`; its id and token. */
export async function signup(apiUrl: string, i: number): Promise<{ id: string; token: string }> {
  const response = await fetch(`${apiUrl}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: `User ${i}`, email: `user${i}@bench.test`, password: 'bench-password' }),
  });
  const body = (await response.json()) as { token: string; user: { id: string } };
  if (response.status !== 201) throw new Error(`signup answered ${response.status}: ${JSON.stringify(body)}`);
  return { id: body.user.id, token: body.token };
}
