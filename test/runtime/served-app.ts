/**
 * Driving a published application over real HTTP: publish (and wait for the deployment job),
 * then call `{app_url}/api/v{version}/…` as an end user, anonymously or as the administrator.
 */
import type { TestPlatform } from '../support/platform.ts';
import type { Tenant } from '../support/tenant.ts';
import { todoScode } from '../support/examples.ts';

export { publish } from '../support/publish.ts';

/**
 * The to-do example without its event trigger (the welcome to-do made on `User.created`), so
 * that counts of rows are exact whenever events run: for tests of rules and writes, not actions.
 */
export function todoScodeWithoutEvents(): ReturnType<typeof todoScode> {
  const scode = todoScode();
  scode.triggers = (scode.triggers as Array<{ trigger: { type: string } }>).filter((t) => t.trigger.type !== 'event');
  return scode;
}

/** The example without events plus `GET /whoami`, whose action answers signed-in callers with `body` (CEL over `auth`). */
export function whoamiScode(body: string): ReturnType<typeof todoScode> & { triggers: unknown[]; actions: unknown[] } {
  const scode = todoScodeWithoutEvents() as ReturnType<typeof todoScode> & { triggers: unknown[]; actions: unknown[] };
  scode.actions.push({
    id: 'urn:svc:action:whoami',
    startEffectId: 'answer',
    effects: [{ actionEffectId: 'answer', effect: 'flow.return', params: { status: 200 }, bindParams: { body } }],
  });
  scode.triggers.push({
    trigger: { id: 'urn:svc:trigger:whoami', type: 'http', method: 'GET', path: '/whoami' },
    actionId: 'urn:svc:action:whoami',
    initialState: {},
    validation: [],
    isPublic: false,
  });
  return scode;
}

/** Who calls: an end user's token, nobody, or the builder's management credentials (the app's administrator). */
export type As = string | 'admin' | null;

/** A record as the generated API answers it. */
export type Rec = Record<string, unknown> & { id: string };

/** A list answer. */
export interface Page {
  items: Rec[];
  total: number;
  offset: number;
}

/** A problem+json answer. */
export interface ProblemBody {
  status: number;
  detail: string;
  errors: Array<{ path: string; message: string }>;
}

export interface AppReplyOf<T = Rec> {
  status: number;
  body: T;
  contentType: string;
}

/** One served version of one application. */
export class ServedApi {
  constructor(
    private readonly t: TestPlatform,
    private readonly tenant: Tenant,
    readonly applicationId: string,
    readonly serverVersion: string,
  ) {}

  get base(): string {
    return `${this.t.baseUrl}${this.t.config.appsPath}/${this.applicationId}/api/v${this.serverVersion}`;
  }

  async call<T = Rec>(method: string, path: string, as: As = null, body?: unknown): Promise<AppReplyOf<T>> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (as === 'admin') {
      headers.authorization = `Bearer ${this.tenant.api.token}`;
      headers['x-svc-api-client'] = this.tenant.api.apiKey!;
    } else if (as) headers.authorization = `Bearer ${as}`;
    const response = await fetch(this.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    const contentType = response.headers.get('content-type') ?? '';
    return { status: response.status, body: (text && contentType.includes('json') ? JSON.parse(text) : text) as T, contentType };
  }

  get<T = Rec>(path: string, as: As = null) {
    return this.call<T>('GET', path, as);
  }
  post<T = Rec>(path: string, body: unknown, as: As = null) {
    return this.call<T>('POST', path, as, body);
  }
  patch<T = Rec>(path: string, body: unknown, as: As = null) {
    return this.call<T>('PATCH', path, as, body);
  }
  delete<T = Rec>(path: string, as: As = null) {
    return this.call<T>('DELETE', path, as);
  }

  /** Signs up an end user; returns their token and record. */
  async signup(name: string, email: string, password = 'correct horse'): Promise<{ token: string; user: Rec }> {
    const reply = await this.post<{ token: string; user: Rec }>('/auth/signup', { name, email, password });
    if (reply.status !== 201) throw new Error(`signup answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    return reply.body;
  }
}
