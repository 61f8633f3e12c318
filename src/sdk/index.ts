/**
 * The typed management client (`appbuilder/sdk`): openapi-fetch over the types openapi-typescript
 * generates from the management OpenAPI document at build time (`generated/management.ts`, see
 * generate.ts), so no type here is written by hand and none can drift from the service.
 *
 *   const api = createManagementClient({ baseUrl, clientId, clientSecret });
 *   const project = await ok(api.POST('/v1/projects', { body: { name: 'Shop' } }));
 *
 * Tokens: client credentials, fetched on first use and refreshed before they expire.
 * Errors: any answer other than 2xx becomes a `ProblemError` carrying the problem body.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, paths } from './generated/management.ts';

export type * from './generated/management.ts';

/** RFC 9457 problem details, as the service sends them. */
export type ProblemBody = components['schemas']['Problem'];
export type ManagementApi = Client<paths>;

/** An answer other than 2xx, with its problem body (`errors` names each offending path). */
export class ProblemError extends Error {
  readonly status: number;
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  readonly errors: ProblemBody['errors'];

  constructor(status: number, body: unknown) {
    const problem = isProblem(body) ? body : null;
    super(problem ? `${problem.status} ${problem.title}: ${problem.detail}` : `The service answered ${status}.`);
    this.name = 'ProblemError';
    this.status = status;
    this.type = problem?.type ?? 'about:blank';
    this.title = problem?.title ?? `HTTP ${status}`;
    this.detail = problem?.detail ?? (typeof body === 'string' ? body : '');
    this.errors = problem?.errors ?? [];
  }
}

function isProblem(body: unknown): body is ProblemBody {
  const candidate = body as Partial<ProblemBody> | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.status === 'number' && typeof candidate.title === 'string';
}

/** The data of a successful answer, or a `ProblemError`: `await ok(api.GET('/v1/projects'))`. */
export async function ok<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await pending;
  if (!response.ok) throw new ProblemError(response.status, error);
  return data as T;
}

export interface ManagementClientOptions {
  /** The service's origin, e.g. `http://localhost:8080` (the paths carry `/v1`). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Refresh this many seconds before the token expires (default 60; at most half its lifetime). */
  refreshMarginSeconds?: number;
  fetch?: (input: Request) => Promise<Response>;
  /** The clock, in milliseconds (tests move it). */
  now?: () => number;
}

/** Client-credentials access tokens, shared by concurrent requests and renewed ahead of expiry. */
export class TokenSource {
  private current: { token: string; renewAt: number } | null = null;
  private pending: Promise<string> | null = null;
  /** How many tokens were obtained (tests read it). */
  issued = 0;
  private readonly auth: ManagementApi;

  constructor(private readonly options: ManagementClientOptions) {
    this.auth = createClient<paths>({ baseUrl: options.baseUrl, fetch: options.fetch });
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  async token(): Promise<string> {
    if (this.current && this.now() < this.current.renewAt) return this.current.token;
    this.pending ??= this.obtain().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async obtain(): Promise<string> {
    const { clientId, clientSecret } = this.options;
    const answer = await ok(
      this.auth.POST('/v1/oauth/token', { body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret } }),
    );
    const margin = Math.min(this.options.refreshMarginSeconds ?? 60, answer.expires_in / 2);
    this.current = { token: answer.access_token, renewAt: this.now() + (answer.expires_in - margin) * 1000 };
    this.issued += 1;
    return answer.access_token;
  }
}

/** A typed client of the management API that authenticates every request. */
export function createManagementClient(options: ManagementClientOptions): ManagementApi & { tokens: TokenSource } {
  const tokens = new TokenSource(options);
  const api = createClient<paths>({ baseUrl: options.baseUrl, fetch: options.fetch });
  const authenticate: Middleware = {
    async onRequest({ request }) {
      request.headers.set('authorization', `Bearer ${await tokens.token()}`);
      request.headers.set('x-svc-api-client', options.clientId);
      return request;
    },
  };
  api.use(authenticate);
  return Object.assign(api, { tokens });
}
