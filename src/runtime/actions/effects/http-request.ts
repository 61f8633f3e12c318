// http.request: an outbound HTTP call through the address guard (private addresses refused unless
// allowed). The output is {status, headers, body} for every status: branch on it with flow.if.
import { guardedRequest } from '../http/client.ts';
import type { EffectModule } from '../types.ts';
import type { HttpMethod } from '../../../definition/schema.ts';

type RequestParams = {
  method: HttpMethod;
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  timeoutMs?: number;
};

export const DEFAULT_HTTP_TIMEOUT_MS = 10_000;
export const MAX_HTTP_TIMEOUT_MS = 30_000;

export const httpRequest: EffectModule<RequestParams> = {
  name: 'http.request',
  run(params, ctx) {
    const wanted = Math.min(params.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS, MAX_HTTP_TIMEOUT_MS);
    return guardedRequest({
      method: params.method,
      url: params.url,
      headers: params.headers ?? {},
      body: params.body,
      // Never past the run's own wall time.
      timeoutMs: Math.max(1, Math.min(wanted, ctx.remainingMs())),
      allow: ctx.httpAllow,
      hops: ctx.hops + 1,
      signal: ctx.signal,
    });
  },
};
