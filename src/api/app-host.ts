/**
 * Routing by Host (docs/security.md, "Origins"): a request to an application's own origin,
 * `{applicationId}.{APPBUILDER_APPS_DOMAIN}[:port]`, is served as that application only. Its URL
 * is rewritten under the shared path form (`/api/v1.0.0/toDos` becomes
 * `{appsPath}/{applicationId}/api/v1.0.0/toDos`), which reaches the generated app's routes
 * (realtime, files, docs, triggers, auth included) and nothing else: the console, the management
 * API and the health routes answer 404 there, so an app's origin never carries them. Every other
 * path there is the app's served frontend (`/` the latest version's, `/v{serverVersion}/` one's).
 */
import type { IncomingMessage } from 'node:http';
import type { AppOrigins } from '../tools/app-origin.ts';
import { FRONTEND_PREFIX } from '../runtime/http/frontend-route.ts';

export function routeByHost(origins: AppOrigins, appsPath: string): (request: IncomingMessage) => string {
  return (request) => {
    const url = request.url ?? '/';
    const applicationId = origins.applicationOf(request.headers.host);
    if (applicationId === null) return url;
    // `/api/…` is the app's API; anything else is its served frontend (runtime/http/frontend-route.ts).
    return url.startsWith('/api/') ? `${appsPath}/${applicationId}${url}` : `${appsPath}/${applicationId}${FRONTEND_PREFIX}${url.startsWith('/') ? url : `/${url}`}`;
  };
}
