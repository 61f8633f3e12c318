/**
 * The addresses of an application in every Application answer. `status.appUrl` is the app's own
 * origin (`http://{id}.{APPBUILDER_APPS_DOMAIN}:{port}`, tools/app-origin.ts), where browsers
 * reach it. Each entry of `status.deployments` carries `apiUrl` and `openapiUrl` on the shared
 * path form (`{origin}{APPBUILDER_APPS_PATH}/{id}/api/v{serverVersion}`: JSON, reachable by Node
 * clients, which do not resolve `*.localhost`, and by the console, same origin), `docsUrl` (an
 * HTML page, so on the own origin), and the latest served version `frontendBundleUrl`. The
 * shared origin is APPBUILDER_PUBLIC_URL, else the request's (docs/security.md, "Origins").
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { appUrlOf } from '../services/integration-prompts.ts';
import type { Application, DeploymentStatus } from '../services/applications/view.ts';
import type { AppOrigins } from '../tools/app-origin.ts';

export interface ServedUrls {
  apiUrl: string;
  docsUrl: string;
  openapiUrl: string;
  /** The version's served frontend, on the app's own origin: `{appUrl}/v{serverVersion}/` (runtime/http/frontend-route.ts). */
  frontendUrl: string;
  frontendBundleUrl?: string;
}

type UrlConfig = Pick<Config, 'publicUrl' | 'appsPath' | 'basePath'>;

/** The public origin: APPBUILDER_PUBLIC_URL, else protocol and Host of the request. */
export function requestOrigin(request: Pick<FastifyRequest, 'protocol' | 'host'>, publicUrl: string | null): string {
  return (publicUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');
}

/** The URLs of one version of an application: the API on the shared `origin`, the reference page on the app's own `appUrl`. */
export function servedUrls(config: UrlConfig, origin: string, appUrl: string, applicationId: string, serverVersion: string): ServedUrls {
  const apiUrl = `${appUrlOf(origin, config.appsPath, applicationId)}/api/v${serverVersion}`;
  return { apiUrl, docsUrl: `${appUrl}/api/v${serverVersion}/docs`, openapiUrl: `${apiUrl}/openapi.json`, frontendUrl: `${appUrl}/v${serverVersion}/` };
}

function isApplication(value: unknown): value is Application {
  const status = (value as { status?: { deployments?: unknown } } | null)?.status;
  return typeof (value as { id?: unknown } | null)?.id === 'string' && Array.isArray(status?.deployments);
}

/** The Application with its own origin (`status.appUrl`) and the URLs of each version in `status.deployments` (a copy; the input is left alone). */
export function withServedUrls(application: Application, config: UrlConfig, origin: string, origins: AppOrigins): Application {
  const appUrl = origins.of(application.id);
  // The frontend bundle is built from the most recently published version that is served.
  const latest = application.status.deployments
    .filter((d) => d.state === 'active')
    .sort((a, b) => (b.publishedAt ?? '').localeCompare(a.publishedAt ?? ''))[0];
  const deployments = application.status.deployments.map((d): DeploymentStatus & ServedUrls => ({
    ...d,
    ...servedUrls(config, origin, appUrl, application.id, d.serverVersion),
    ...(d === latest ? { frontendBundleUrl: `${origin}${config.basePath}/applications/${application.id}/frontendBundle` } : {}),
  }));
  // `{appUrl}/` serves the latest served version's frontend.
  return { ...application, status: { ...application.status, appUrl, ...(latest ? { frontendUrl: `${appUrl}/` } : {}), deployments } };
}

/**
 * Adds the URLs to every Application (or page of them) a route of `app` answers. Registered by
 * the applications routes on the management scope they share with the other application route
 * groups, so every answer carrying an Application carries them.
 */
export function addServedUrls(app: FastifyInstance, config: UrlConfig, origins: AppOrigins): void {
  app.addHook('preSerialization', async (request, _reply, payload: unknown) => {
    const origin = () => requestOrigin(request, config.publicUrl);
    if (isApplication(payload)) return withServedUrls(payload, config, origin(), origins);
    const items = (payload as { items?: unknown } | null)?.items;
    if (Array.isArray(items) && items.some(isApplication)) {
      return { ...(payload as object), items: items.map((item) => (isApplication(item) ? withServedUrls(item, config, origin(), origins) : item)) };
    }
    return payload;
  });
}
