import Router, { type HTTPMethod } from 'find-my-way';
import { notFound } from '../../errors.ts';
import { normalisePath } from '../../definition/consistency/triggers.ts';
import type { CompiledApp } from '../compiled-app.ts';
import type { AppHandler, AppRequest, AppRoute } from './types.ts';

export interface AppRouter {
  /** `template`: the route's path as the app declares it (`/toDos/:id`), for the request log. */
  find(method: string, path: string): { handler: AppHandler; params: Record<string, string>; template: string } | null;
  /** The methods `path` answers (for a 405's `Allow`), HEAD with GET. */
  allowed(path: string): string[];
}

/** Contributes the routes of one concern (resources, auth, docs, triggers) for a compiled app. */
export type RouteSource = (app: CompiledApp) => AppRoute[];

const paramNames = (path: string): string[] => [...path.matchAll(/\/:([^/]+)/g)].map((m) => m[1]);

/** The request with its params renamed for `route` (templates sharing a path may name params differently). */
function paramsFor(request: AppRequest, registered: string[], route: AppRoute): AppRequest {
  const values = registered.map((name) => request.params[name]);
  const names = paramNames(route.path);
  return { ...request, params: Object.fromEntries(names.map((name, i) => [name, values[i]])) };
}

/**
 * Several routes on one method and path: the selecting ones (HTTP triggers with matchSelectors)
 * are asked in order, the first that selects the request answers; else the plain one, if any;
 * else 404.
 */
function chooser(routes: AppRoute[]): AppHandler {
  const registered = paramNames(routes[0].path);
  const selecting = routes.filter((r) => r.select);
  const plain = routes.find((r) => !r.select);
  return async (request) => {
    for (const route of selecting) {
      const renamed = paramsFor(request, registered, route);
      if (route.select!(renamed)) return route.handler(renamed);
    }
    if (plain) return plain.handler(paramsFor(request, registered, plain));
    throw notFound(`No trigger for ${request.method} ${request.path} matches this request.`);
  };
}

/**
 * The router of one served version, built once when the version is first served and
 * kept with its compiled app: swapping the compiled app swaps the routes with it.
 */
export function buildAppRouter(app: CompiledApp, sources: RouteSource[]): AppRouter {
  const router = Router({ ignoreTrailingSlash: true, caseSensitive: true });
  const groups = new Map<string, AppRoute[]>();
  for (const source of sources) {
    for (const route of source(app)) {
      const key = `${route.method} ${normalisePath(route.path)}`;
      const group = groups.get(key);
      if (group) group.push(route);
      else groups.set(key, [route]);
    }
  }
  const methods = new Set<string>();
  for (const routes of groups.values()) {
    methods.add(routes[0].method);
    const handler = routes.length === 1 && !routes[0].select ? routes[0].handler : chooser(routes);
    router.on(routes[0].method, routes[0].path, () => undefined, { handler, template: routes[0].path });
  }
  return {
    find(method, path) {
      const found = router.find(method as HTTPMethod, path);
      if (!found) return null;
      const params: Record<string, string> = {};
      for (const [key, value] of Object.entries(found.params)) if (value !== undefined) params[key] = value;
      const store = found.store as { handler: AppHandler; template: string };
      return { handler: store.handler, params, template: store.template };
    },
    allowed(path) {
      const allow = [...methods].filter((method) => router.find(method as HTTPMethod, path) !== null);
      return (allow.includes('GET') ? [...allow, 'HEAD'] : allow).sort();
    },
  };
}
