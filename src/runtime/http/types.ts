import type { AppValues } from '../../secrets/app-values.ts';
import type { IncomingHttpHeaders } from 'node:http';
import type { CompiledApp } from '../compiled-app.ts';
import type { Caller } from '../caller.ts';
import type { FileService } from '../../files/service.ts';
import type { FileRow } from '../../files/table.ts';

/** A request to a generated app, after routing and authentication. */
export interface AppRequest {
  app: CompiledApp;
  method: string;
  /** The path below the version prefix, e.g. `/toDos/123`. */
  path: string;
  params: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
  body: unknown;
  headers: IncomingHttpHeaders;
  caller: Caller;
  /** The client's address (what rate limits count by). */
  address?: string;
  /** The application's variables and secrets now (secrets/app-values.ts); none when not configured. */
  values?: AppValues;
  /** The customer owning the application (its storage holds the app's files). */
  customerId?: string;
  /** This version's files route as an absolute URL ending in `/`: a stored file key reads as this plus the key (DESIGN §6). */
  filesUrl?: string;
  /** The application's own origin, `http://{id}.{APPBUILDER_APPS_DOMAIN}:{port}` (tools/app-origin.ts). */
  appUrl?: string;
  /** Whether the request came to the app's own origin (true) or to the shared path form (false or absent). */
  onOwnOrigin?: boolean;
}

/** What a handler answers; `json` is sent as is when set (JSON built by PostgreSQL). */
export interface AppResponse {
  status: number;
  body?: unknown;
  json?: string;
  /** Headers of the builder's choosing (or a route's): the origin's policy applies (answer-headers.ts). */
  headers?: Record<string, string>;
  /** Headers the service sets on its own routes (an OpenID flow's state cookie): pass on either origin. */
  serviceHeaders?: Record<string, string>;
  /** A stored file to stream (files/serve.ts: ETag, Range, 304, safe headers); `status` is then set by it. */
  file?: { files: FileService; row: FileRow };
  /** A body sent as it is produced, pulled as the client reads (an export): `headers` name its type. */
  stream?: AsyncIterable<string>;
}

export type AppHandler = (request: AppRequest) => Promise<AppResponse>;

export interface AppRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  handler: AppHandler;
  /**
   * A route that answers only the requests it selects (an HTTP trigger's matchSelectors). Routes
   * sharing a method and path are tried in order; the one without `select` answers the rest.
   */
  select?: (request: AppRequest) => boolean;
}
