/**
 * The fixed part of a version's `client.ts` (typescript-client.ts writes the rest): how to
 * use it, the argument and answer types read from `operations`, and the fetch call. Plain
 * TypeScript over the global `fetch`, `URL` and `URLSearchParams` (browsers, Node 18+,
 * Deno, Bun), so the client needs no package; it type-checks under `strict`,
 * `noUncheckedIndexedAccess` and `exactOptionalPropertyTypes`. Its realtime part (`subscribe`)
 * is in typescript-client-realtime.ts.
 */
import { REALTIME_NAMES } from './typescript-client-realtime.ts';

export const CLIENT_USAGE = `//
//   import { createClient } from './client.ts';
//   const api = createClient({ baseUrl: 'http://localhost:8080/apps/<applicationId>/api/v<version>' });
//   await api.auth.signUp({ name: 'Ann', email: 'ann@example.com', password: 'correct horse battery' });
//   const page = await api.toDos.list({ limit: 10, sort: '-deadline', filter: 'record.status == "open"' });
//   const unsubscribe = api.toDos.subscribe((event) => console.log(event.action, event.record.id));
//
// Any answer other than 2xx throws ApiProblem (status, problem.title, problem.errors[{path, message}]).
// Needs the types of fetch: "lib": ["DOM"] or @types/node in the program's tsconfig.`;

/** Names the wrapper exports: a schema with one of them keeps only its `components["schemas"]` form. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  'paths',
  'components',
  'operations',
  'webhooks',
  '$defs',
  'SERVER_VERSION',
  'Answer',
  'Args',
  'ApiProblem',
  'ClientOptions',
  'ClientState',
  'createClient',
  'AppClient',
  'transport',
  ...REALTIME_NAMES,
]);

export const CLIENT_RUNTIME = String.raw`
type JsonOf<R> = R extends { content: { "application/json": infer T } } ? T : undefined;

/** What an operation answers on success: its 200 or 201 body, nothing for 204. */
export type Answer<O> = O extends { responses: infer R }
  ? 200 extends keyof R
    ? JsonOf<R[200]>
    : 201 extends keyof R
      ? JsonOf<R[201]>
      : undefined
  : never;

type PathOf<O> = O extends { parameters: { path: infer P } } ? { path: P } : { path?: undefined };
type QueryOf<O> = O extends { parameters: { query?: infer Q } }
  ? [Exclude<Q, undefined>] extends [never]
    ? { query?: undefined }
    : { query?: Exclude<Q, undefined> | undefined }
  : { query?: undefined };
type BodyOf<O> = O extends { requestBody: { content: { "application/json": infer B } } }
  ? { body: B }
  : O extends { requestBody?: { content: { "application/json": infer B } } }
    ? { body?: B | undefined }
    : { body?: undefined };

/** An operation's path parameters, query and JSON body, as its OpenAPI entry types them. */
export type Args<O> = PathOf<O> & QueryOf<O> & BodyOf<O>;

type ProblemBody = components["schemas"]["Problem"];

/** An answer other than 2xx: RFC 9457 problem details, each error naming the offending path. */
export class ApiProblem extends Error {
  readonly status: number;
  readonly problem: ProblemBody;
  constructor(status: number, problem: ProblemBody) {
    super(status + " " + problem.title + ": " + problem.detail);
    this.name = "ApiProblem";
    this.status = status;
    this.problem = problem;
  }
}

export interface ClientOptions {
  /** The version's API address: "{app_url}/api/v{serverVersion}". */
  baseUrl: string;
  /** An end user's access token from an earlier session (signUp, logIn, refresh). */
  token?: string | null;
  /** The refresh token of that session, for auth.refresh(). */
  refreshToken?: string | null;
  /** Headers sent with every request (e.g. a builder's management credentials). */
  headers?: Record<string, string>;
  /** Another fetch (a test's, a framework's); the global one by default. */
  fetch?: typeof fetch;
}

interface ClientState {
  token: string | null;
  refreshToken: string | null;
}

function problemOf(status: number, statusText: string, data: unknown): ProblemBody {
  const body = (typeof data === "object" && data !== null ? data : {}) as Partial<ProblemBody>;
  return {
    type: typeof body.type === "string" ? body.type : "about:blank",
    title: typeof body.title === "string" ? body.title : statusText,
    status: typeof body.status === "number" ? body.status : status,
    detail: typeof body.detail === "string" ? body.detail : typeof data === "string" ? data : "",
    errors: Array.isArray(body.errors) ? body.errors : [],
  };
}

function transport(options: ClientOptions, state: ClientState) {
  const base = options.baseUrl.replace(/\/+$/, "");
  const send = options.fetch ?? globalThis.fetch;

  async function call<K extends keyof operations>(method: string, template: string, args: Args<operations[K]>): Promise<Answer<operations[K]>> {
    const { path, query, body } = args as { path?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown };
    let url = base + template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(path?.[name] ?? "")));
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      for (const item of Array.isArray(value) ? value : [value]) search.append(key, String(item));
    }
    if (search.toString() !== "") url += "?" + search.toString();
    const headers: Record<string, string> = { accept: "application/json", ...options.headers };
    if (state.token) headers["authorization"] = "Bearer " + state.token;
    if (body !== undefined) headers["content-type"] = "application/json";
    const response = await send(url, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await response.text();
    let data: unknown = undefined;
    if (text !== "") {
      try {
        data = JSON.parse(text);
      } catch {
        data = text;
      }
    }
    if (!response.ok) throw new ApiProblem(response.status, problemOf(response.status, response.statusText, data));
    return data as Answer<operations[K]>;
  }

  /** Keeps the tokens of a session answer (signUp, logIn, refresh…); a second-factor challenge keeps none. */
  function keepToken<T>(answer: T): T {
    const session = answer as { token?: unknown; refreshToken?: unknown } | null | undefined;
    if (typeof session?.token === "string") {
      state.token = session.token;
      state.refreshToken = typeof session.refreshToken === "string" ? session.refreshToken : null;
    }
    return answer;
  }

  /** Ends the session on the server when there is one, then forgets both tokens whatever the answer. */
  async function endSession(request: () => Promise<unknown>): Promise<void> {
    try {
      if (state.token !== null) await request();
    } catch (error) {
      // 401: the token had already expired or been revoked, so there is nothing left to end.
      if (!(error instanceof ApiProblem && error.status === 401)) throw error;
    } finally {
      state.token = null;
      state.refreshToken = null;
    }
  }

  function keptRefreshToken(): string {
    if (state.refreshToken === null) throw new Error("No refresh token is kept: sign up or log in first, or pass refreshToken to createClient.");
    return state.refreshToken;
  }

  return { call, keepToken, endSession, keptRefreshToken };
}
`;
