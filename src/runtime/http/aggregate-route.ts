// `GET /{resource}/aggregate` for each model (data/aggregate.ts). A static segment: the router
// prefers it to `/{resource}/{id}`, so no record route answers it.
import type { Db } from '../../storage/db.ts';
import { aggregateJson } from '../data/aggregate.ts';
import { intParam, readContext, textParam, type ResourceRouteOptions } from './resource-routes.ts';
import type { RouteSource } from './router.ts';

export function aggregateRoutes(db: Db, options: ResourceRouteOptions = {}): RouteSource {
  return (app) =>
    app.models.map((model) => ({
      method: 'GET' as const,
      path: `/${model.resource}/aggregate`,
      handler: async (request) => {
        const json = await aggregateJson(db, app, model, {
          ctx: readContext(request.caller, request.values?.env, options, request.filesUrl),
          groupBy: textParam(request, 'groupBy'),
          metrics: textParam(request, 'metrics'),
          filter: textParam(request, 'filter'),
          search: textParam(request, 'search'),
          sort: textParam(request, 'sort'),
          limit: intParam(request, 'limit', 20, 1000),
          offset: intParam(request, 'offset', 0, Number.MAX_SAFE_INTEGER),
        });
        return { status: 200, json };
      },
    }));
}
