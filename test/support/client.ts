/** A small HTTP client for tests: real requests against a listening server. */
export interface Reply<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface Credentials {
  apiKey: string;
  secret: string;
}

export class ApiClient {
  token: string | null = null;

  constructor(
    readonly baseUrl: string,
    readonly apiKey: string | null = null,
  ) {}

  static async login(baseUrl: string, credentials: Credentials, basePath = '/v1'): Promise<ApiClient> {
    const client = new ApiClient(baseUrl, credentials.apiKey);
    const reply = await client.request<{ access_token: string }>('POST', `${basePath}/oauth/token`, {
      body: { grant_type: 'client_credentials', client_id: credentials.apiKey, client_secret: credentials.secret },
      auth: false,
    });
    if (reply.status !== 200) throw new Error(`token request failed: ${reply.status} ${reply.text}`);
    client.token = reply.body.access_token;
    return client;
  }

  async request<T = unknown>(
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string>; auth?: boolean; rawBody?: string } = {},
  ): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.auth !== false && this.token) headers.authorization = `Bearer ${this.token}`;
    if (options.auth !== false && this.apiKey) headers['x-svc-api-client'] = this.apiKey;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get<T = unknown>(path: string) {
    return this.request<T>('GET', path);
  }
  post<T = unknown>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, { body, headers });
  }
  patch<T = unknown>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PATCH', path, { body, headers });
  }
  put<T = unknown>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PUT', path, { body, headers });
  }
  delete<T = unknown>(path: string) {
    return this.request<T>('DELETE', path);
  }
}
