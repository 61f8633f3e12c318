import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { CompiledApp } from '../compiled-app.ts';
import { buildOpenApi, type OpenApiOptions } from '../docs/openapi.ts';
import { describeRateLimits } from '../docs/rate-limit-docs.ts';
import { NO_RATE_LIMITS, type RateLimitSettings } from './rate-limits.ts';
import type { RouteSource } from './router.ts';
import type { AppRequest, AppResponse, AppRoute } from './types.ts';

/** The swagger-ui files the reference page loads: the ones @fastify/swagger-ui serves for /v1/docs, served by us (no CDN). */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};
const ASSET_DIR = join(dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui')), 'static');
const assetCache = new Map<string, Promise<string>>();

function asset(name: string): Promise<string> {
  let text = assetCache.get(name);
  if (!text) {
    text = readFile(join(ASSET_DIR, name), 'utf8');
    assetCache.set(name, text);
    text.catch(() => assetCache.delete(name));
  }
  return text;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const PAGE_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

function page(title: string, prefix: string): string {
  const at = (path: string) => escapeHtml(`${prefix}${path}`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} — API reference</title>
<link rel="stylesheet" href="${at('/docs/assets/swagger-ui.css')}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${at('/docs/assets/swagger-ui-bundle.js')}"></script>
<script src="${at('/docs/init.js')}"></script>
</body>
</html>
`;
}

/** Where the reference page is, for a request on the shared origin (it is served on the app's own origin only). */
function elsewhere(request: AppRequest): AppResponse {
  const url = `${request.appUrl}/api/v${request.app.serverVersion}/docs`;
  return { status: 302, headers: { location: url, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-cache' }, body: `The API reference is served on the application's own origin: ${url}\n` };
}

/**
 * `GET /openapi.json` (the version's OpenAPI 3.1 document) and `GET /docs` (its reference
 * page, with the swagger-ui assets under `/docs/assets/`). The page is HTML, so it is served
 * on the app's own origin only; on the shared path form it answers a redirect there. The
 * page is left out when the app itself serves `GET /docs` (a model whose resource is `docs`,
 * or a trigger).
 */
export function docsRoutes(appsPath: string, limits: RateLimitSettings = NO_RATE_LIMITS, bounds: Pick<OpenApiOptions, 'relationLimit' | 'embeddedIdLimit'> = {}): RouteSource {
  // One document per version and prefix: the shared path form's, and the own origin's (`/api/v…`).
  const documents = new WeakMap<CompiledApp, Map<string, string>>();
  return (app) => {
    const sharedPrefix = `${appsPath}/${app.applicationId}/api/v${app.serverVersion}`;
    const ownPrefix = `/api/v${app.serverVersion}`;
    const prefixOf = (request: AppRequest) => (request.onOwnOrigin ? ownPrefix : sharedPrefix);
    const document = (prefix: string) => {
      let texts = documents.get(app);
      if (!texts) documents.set(app, (texts = new Map()));
      let text = texts.get(prefix);
      if (text === undefined) {
        text = JSON.stringify(describeRateLimits(buildOpenApi(app, { serverUrl: prefix, ...bounds }), limits));
        texts.set(prefix, text);
      }
      return text;
    };
    const routes: AppRoute[] = [{ method: 'GET', path: '/openapi.json', handler: async (request) => ({ status: 200, json: document(prefixOf(request)) }) }];
    const taken = app.modelsByResource.has('docs') || app.definition.triggers.some((t) => t.trigger.type === 'http' && t.trigger.method === 'GET' && /^\/docs(\/|$)/.test(t.trigger.path));
    if (taken) return routes;
    const title = app.definition.appOverview?.name ?? app.definition.appId;
    routes.push(
      {
        method: 'GET',
        path: '/docs',
        handler: async (request) =>
          request.onOwnOrigin
            ? { status: 200, body: page(title, ownPrefix), headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PAGE_CSP } }
            : elsewhere(request),
      },
      {
        method: 'GET',
        path: '/docs/init.js',
        handler: async (request) => ({
          status: 200,
          body: `window.onload = function () {\n  window.ui = SwaggerUIBundle({ url: ${JSON.stringify(`${prefixOf(request)}/openapi.json`)}, dom_id: '#swagger-ui', deepLinking: true, presets: [SwaggerUIBundle.presets.apis], layout: 'BaseLayout' });\n};\n`,
          headers: { 'content-type': 'text/javascript; charset=utf-8' },
        }),
      },
      ...Object.entries(ASSETS).map(
        ([name, type]): AppRoute => ({
          method: 'GET',
          path: `/docs/assets/${name}`,
          handler: async () => ({ status: 200, body: await asset(name), headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' } }),
        }),
      ),
    );
    return routes;
  };
}
