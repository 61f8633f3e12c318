/**
 * The addresses of an application's versions in every Application answer (issue 23): each entry
 * of `status.deployments` carries `apiUrl` (`{app_url}/api/v{serverVersion}`), `docsUrl` and
 * `openapiUrl`, and the latest served version `frontendBundleUrl`. `{app_url}` is built as the
 * integration prompts and frontend bundles build it: APPBUILDER_PUBLIC_URL, else the request's
 * origin, then APPBUILDER_APPS_PATH and the application id.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { appUrlOf } from '../services/integration-prompts.ts';
import type { Application, DeploymentStatus } from '../services/applications/view.ts';

export interface ServedUrls {
  apiUrl: string;
  docsUrl: string;
  openapiUrl: string;
  frontendBundleUrl?: string;
}

type UrlConfig = Pick<Config, 'publicUrl' | 'appsPath' | 'basePath'>;

/** The public origin: APPBUILDER_PUBLIC_URL, else protocol and Host of the request. */
export function requestOrigin(request: Pick<FastifyRequest, 'protocol' | 'host'>, publicUrl: string | null): string {
  return (publicUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');
}

/** The URLs of one version of an application under `origin`. */
export function servedUrls(config: UrlConfig, origin: string, applicationId: string, serverVersion: string): ServedUrls {
  const apiUrl = `${appUrlOf(origin, config.appsPath, applicationId)}/api/v${serverVersion}`;
  return { apiUrl, docsUrl: `${apiUrl}/docs`, openapiUrl: `${apiUrl}/openapi.json` };
}

function isApplication(value: unknown): value is Application {
  const status = (value as { status?: { deployments?: unknown } } | null)?.status;
  return typeof (value as { id?: unknown } | null)?.id === 'string' && Array.isArray(status?.deployments);
}

/** The Application with the URLs of each version in `status.deployments` (a copy; the input is left alone). */
export function withServedUrls(application: Application, config: UrlConfig, origin: string): Application {
  // The frontend bundle is built from the most recently published version that is served.
  const latest = application.status.deployments
    .filter((d) => d.state === 'active')
    .sort((a, b) => (b.publishedAt ?? '').localeCompare(a.publishedAt ?? ''))[0];
  const deployments = application.status.deployments.map((d): DeploymentStatus & ServedUrls => ({
    ...d,
    ...servedUrls(config, origin, application.id, d.serverVersion),
    ...(d === latest ? { frontendBundleUrl: `${origin}${config.basePath}/applications/${application.id}/frontendBundle` } : {}),
  }));
  return { ...application, status: { ...application.status, deployments } };
}

/**
 * Adds the URLs to every Application (or page of them) a route of `app` answers. Registered by
 * the applications routes on the management scope they share with the other application route
 * groups, so every answer carrying an Application carries them.
 */
export function addServedUrls(app: FastifyInstance, config: UrlConfig): void {
  app.addHook('preSerialization', async (request, _reply, payload: unknown) => {
    const origin = () => requestOrigin(request, config.publicUrl);
    if (isApplication(payload)) return withServedUrls(payload, config, origin());
    const items = (payload as { items?: unknown } | null)?.items;
    if (Array.isArray(items) && items.some(isApplication)) {
      return { ...(payload as object), items: items.map((item) => (isApplication(item) ? withServedUrls(item, config, origin()) : item)) };
    }
    return payload;
  });
}
