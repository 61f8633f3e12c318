import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { FastifyInstance } from 'fastify';

/**
 * The methods a path answers, for `405 Method Not Allowed` with `Allow` (RFC 9110 §15.5.6):
 * every route the server registers is mirrored in a router of the same library Fastify routes
 * with, so a path is matched exactly as Fastify matches it.
 */
export function trackAllowedMethods(app: FastifyInstance): (url: string) => string[] {
  const router = FindMyWay({ ignoreTrailingSlash: app.initialConfig.ignoreTrailingSlash ?? false });
  const seen = new Set<string>();
  const methods = new Set<string>();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      const key = `${method} ${route.url}`;
      if (seen.has(key)) continue;
      seen.add(key);
      methods.add(method);
      router.on(method as HTTPMethod, route.url, () => {});
    }
  });
  return (url) => {
    const path = url.split('?')[0];
    return [...methods].filter((method) => router.find(method as HTTPMethod, path) !== null).sort();
  };
}
