// Calling a served version from a chosen client address (Fastify inject sets the socket's
// remote address), for the tests of limits counted per address.
import type { TestPlatform } from './platform.ts';
import type { Tenant } from './tenant.ts';

export interface AddressedReply<T = Record<string, unknown>> {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  contentType: string;
  body: T;
}

/** Who calls: an end user's token, nobody, or the tenant's management credentials. */
export type Credentials = { token: string } | 'admin' | null;

export class AddressedApi {
  constructor(
    private readonly t: TestPlatform,
    private readonly tenant: Tenant,
    readonly applicationId: string,
    readonly serverVersion: string,
  ) {}

  get prefix(): string {
    return `${this.t.config.appsPath}/${this.applicationId}/api/v${this.serverVersion}`;
  }

  async call<T = Record<string, unknown>>(address: string, method: 'GET' | 'POST', path: string, as: Credentials = null, body?: unknown): Promise<AddressedReply<T>> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (as === 'admin') {
      headers.authorization = `Bearer ${this.tenant.api.token}`;
      headers['x-svc-api-client'] = this.tenant.api.apiKey!;
    } else if (as) headers.authorization = `Bearer ${as.token}`;
    const answer = await this.t.platform.server.inject({
      method,
      url: this.prefix + path,
      headers,
      remoteAddress: address,
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    const contentType = String(answer.headers['content-type'] ?? '');
    return { status: answer.statusCode, headers: answer.headers, contentType, body: (contentType.includes('json') ? answer.json() : answer.body) as T };
  }

  get<T = Record<string, unknown>>(address: string, path: string, as: Credentials = null) {
    return this.call<T>(address, 'GET', path, as);
  }

  post<T = Record<string, unknown>>(address: string, path: string, body: unknown, as: Credentials = null) {
    return this.call<T>(address, 'POST', path, as, body);
  }

  async signup(address: string, name: string, email: string, password = 'correct horse'): Promise<{ token: string; user: { id: string } }> {
    const reply = await this.post<{ token: string; user: { id: string } }>(address, '/auth/signup', { name, email, password });
    if (reply.status !== 201) throw new Error(`signup answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    return reply.body;
  }
}
