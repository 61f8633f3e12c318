/**
 * `GET {app api}/client.ts`: the version's typed TypeScript client (docs/typescript-client.ts),
 * open like `openapi.json`. Generated once per served version and kept with its compiled app;
 * answered with an ETag (the client's SHA-256), so a re-download that changed nothing is a 304.
 * Left out when the app itself serves `GET /client.ts` (an HTTP trigger).
 */
import { createHash } from 'node:crypto';
import type { CompiledApp } from '../compiled-app.ts';
import { versionClient } from '../docs/typescript-client.ts';
import type { RouteSource } from './router.ts';

interface GeneratedClient {
  text: string;
  etag: string;
}

/** `If-None-Match` names `etag` (a list, or weak forms of it, count too). */
function matches(header: string | string[] | undefined, etag: string): boolean {
  const values = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').map((v) => v.trim().replace(/^W\//, ''));
  return values.includes(etag) || values.includes('*');
}

export function clientRoutes(): RouteSource {
  const clients = new WeakMap<CompiledApp, Promise<GeneratedClient>>();
  const clientOf = (app: CompiledApp): Promise<GeneratedClient> => {
    let client = clients.get(app);
    if (!client) {
      client = versionClient(app).then((text) => ({ text, etag: `"${createHash('sha256').update(text).digest('hex')}"` }));
      clients.set(app, client);
      // A failure is not kept: the next request tries again.
      client.catch(() => clients.delete(app));
    }
    return client;
  };
  return (app) => {
    const taken = app.definition.triggers.some((t) => t.trigger.type === 'http' && t.trigger.method === 'GET' && /^\/client\.ts\/?$/.test(t.trigger.path));
    if (taken) return [];
    return [
      {
        method: 'GET',
        path: '/client.ts',
        handler: async (request) => {
          const client = await clientOf(request.app);
          const headers = { etag: client.etag, 'cache-control': 'public, no-cache' };
          if (matches(request.headers['if-none-match'], client.etag)) return { status: 304, headers };
          return { status: 200, body: client.text, headers: { ...headers, 'content-type': 'application/typescript; charset=utf-8' } };
        },
      },
    ];
  };
}
