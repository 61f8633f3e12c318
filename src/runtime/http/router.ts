import Router, { type HTTPMethod } from 'find-my-way';
import type { CompiledApp } from '../compiled-app.ts';
import type { AppHandler, AppRoute } from './types.ts';

export interface AppRouter {
  find(method: string, path: string): { handler: AppHandler; params: Record<string, string> } | null;
}

/** Contributes the routes of one concern (resources, auth, docs, triggers) for a compiled app. */
export type RouteSource = (app: CompiledApp) => AppRoute[];

/**
 * The router of one served version, built once when the version is first served and
 * kept with its compiled app: swapping the compiled app swaps the routes with it.
 */
export function buildAppRouter(app: CompiledApp, sources: RouteSource[]): AppRouter {
  const router = Router({ ignoreTrailingSlash: true, caseSensitive: true });
  for (const source of sources) {
    for (const route of source(app)) router.on(route.method, route.path, () => undefined, { handler: route.handler });
  }
  return {
    find(method, path) {
      const found = router.find(method as HTTPMethod, path);
      if (!found) return null;
      const params: Record<string, string> = {};
      for (const [key, value] of Object.entries(found.params)) if (value !== undefined) params[key] = value;
      return { handler: (found.store as { handler: AppHandler }).handler, params };
    },
  };
}
