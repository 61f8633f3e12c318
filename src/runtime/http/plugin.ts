import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { decodeJwt, type JWTPayload } from 'jose';
import { notFound, unauthorized } from '../../errors.ts';
import type { Caller } from '../caller.ts';
import type { CompiledApp } from '../compiled-app.ts';
import type { DeploymentRegistry, ServedApp } from '../registry.ts';
import type { EndUserAuth } from './end-user-auth.ts';
import { buildAppRouter, type AppRouter, type RouteSource } from './router.ts';
import type { AppRateLimits } from './rate-limits.ts';
import type { AppResponse } from './types.ts';
import type { AppValuesSource } from '../../secrets/app-values.ts';
import { withEnv } from '../../secrets/current-env.ts';
import { noteAppAnswer, noteAppRequest, trackAppRequests } from '../../monitoring/request-hook.ts';
import type { RequestLogWriter } from '../../monitoring/request-log.ts';
import { sendFile } from '../../files/serve.ts';
import { registerUploadRoute, UPLOAD_PATH } from './upload-route.ts';
import { answerHeaders, SHARED_ORIGIN_CSP } from './answer-headers.ts';
import type { AppOrigins } from '../../tools/app-origin.ts';

export interface GeneratedAppsOptions {
  appsPath: string;
  registry: DeploymentRegistry;
  auth: EndUserAuth;
  /** The customer whose management credentials these headers carry; throws 401 when they are bad. */
  builderCustomer(request: FastifyRequest): Promise<string>;
  sources: RouteSource[];
  /** APPBUILDER_APP_RATE_LIMIT, counted per address, end user or API client. */
  rateLimits?: AppRateLimits;
  /** The request log (DESIGN §19): one row per request to a served version. */
  requestLog?: RequestLogWriter;
  /** The apps' variables and secrets (`env`, `secrets`; DESIGN §11), read for each request. */
  appValues?: AppValuesSource;
  /** APPBUILDER_PUBLIC_URL: the origin of the URLs the apps hand out (stored files'); else the request's. */
  publicUrl?: string | null;
  /** Each application's own origin: a request whose Host names one is served as that application (api/server.ts routes it). */
  origins: AppOrigins;
}

const VERSION = /^v(\d+\.\d+\.\d+)$/;

/** Why a bearer token was refused, read from its unverified claims (the reasons say nothing secret). */
function tokenTrouble(token: string): string {
  let claims: JWTPayload;
  try {
    claims = decodeJwt(token);
  } catch {
    return 'The token is malformed: expected a JWT (three base64url parts separated by dots) from POST …/auth/login.';
  }
  if (typeof claims.exp === 'number' && claims.exp * 1000 <= Date.now()) {
    return `The token expired at ${new Date(claims.exp * 1000).toISOString()}; log in again (POST …/auth/login).`;
  }
  return 'The token is not valid for this application.';
}

async function callerOf(request: FastifyRequest, served: ServedApp, options: GeneratedAppsOptions): Promise<Caller> {
  const authorization = request.headers.authorization;
  if (request.headers['x-svc-api-client'] !== undefined) {
    const customerId = await options.builderCustomer(request);
    // A builder of another customer learns nothing about this app.
    if (customerId !== served.customerId) throw notFound('No such application.');
    return { kind: 'admin' };
  }
  const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  if (!token) return { kind: 'anonymous' };
  const user = await options.auth.verify(served.compiled, token);
  if (!user) throw unauthorized(tokenTrouble(token));
  return { kind: 'user', user };
}

/** The answer, with the headers the origin allows (answer-headers.ts): JSON or plain text only on the shared origin. */
function send(reply: FastifyReply, response: AppResponse, onOwnOrigin: boolean): FastifyReply {
  reply.status(response.status);
  const headers = answerHeaders(response.headers, onOwnOrigin, response.serviceHeaders);
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  if (response.json !== undefined) return reply.type('application/json; charset=utf-8').serializer((x) => x as string).send(response.json);
  if (response.body === undefined) return reply.send();
  if (typeof response.body === 'string' && headers['content-type']) return reply.send(response.body);
  return reply.type('application/json; charset=utf-8').serializer(JSON.stringify).send(response.body);
}

/**
 * Serves every published version at `{appsPath}/{applicationId}/api/v{serverVersion}/…` (the
 * shared origin) and at `{app_url}/api/v{serverVersion}/…` (the app's own origin, routed here by
 * its Host): resolve the version, authenticate the caller, route within that version, answer.
 */
export function generatedAppsPlugin(options: GeneratedAppsOptions) {
  const routers = new WeakMap<CompiledApp, AppRouter>();
  const routerOf = (app: CompiledApp): AppRouter => {
    let router = routers.get(app);
    if (!router) {
      router = buildAppRouter(app, options.sources);
      routers.set(app, router);
    }
    return router;
  };

  return async (fastify: FastifyInstance): Promise<void> => {
    if (options.requestLog) trackAppRequests(fastify, options.requestLog);
    const appRoute: RouteOptions = {
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      url: `${options.appsPath}/:applicationId/api/:version/*`,
      schema: { hide: true },
      handler: async (request, reply) => {
        // On the app's own origin when its Host names it; else the shared origin, where even an
        // error answer is never rendered as a page.
        const onOwnOrigin = options.origins.applicationOf(request.headers.host) !== null;
        reply.header('x-content-type-options', 'nosniff');
        if (!onOwnOrigin) reply.header('content-security-policy', SHARED_ORIGIN_CSP);
        options.rateLimits?.anonymous(request, reply);
        // The upload route (upload-route.ts) has no wildcard: its path is the files route.
        const { applicationId, version, '*': rest = UPLOAD_PATH.slice(1) } = request.params as { applicationId: string; version: string; '*'?: string };
        const serverVersion = VERSION.exec(version)?.[1];
        const served = serverVersion && /^[0-9a-f-]{36}$/i.test(applicationId) ? await options.registry.resolve(applicationId, serverVersion) : null;
        if (!served) {
          options.rateLimits?.unserved(request, reply);
          throw notFound(`No published version ${version} of application ${applicationId}.`);
        }
        const note = options.requestLog ? noteAppRequest(request, applicationId, served.compiled.serverVersion) : null;
        const path = `/${rest}`.replace(/\/+$/, '') || '/';
        const route = routerOf(served.compiled).find(request.method, path);
        if (!route) throw notFound(`No route for ${request.method} ${path} in this application.`);
        if (note) note.route = route.template;
        const resolveCaller = () => callerOf(request, served, options);
        const caller = await (options.rateLimits ? options.rateLimits.caller(request, reply, resolveCaller) : resolveCaller());
        if (note && caller.kind === 'user') note.userId = String(caller.user.id);
        const values = options.appValues ? await options.appValues.forApplication(applicationId) : undefined;
        const appUrl = options.origins.of(applicationId);
        const versionPath = `/api/v${served.compiled.serverVersion}`;
        const sharedBase = `${(options.publicUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '')}${options.appsPath}/${applicationId}`;
        // The write path's rules and defaults read `env` from here (secrets/current-env.ts).
        const response = await withEnv(values?.env ?? {}, () => route.handler({
          app: served.compiled,
          method: request.method,
          path,
          params: route.params,
          query: request.query as Record<string, string | string[] | undefined>,
          body: request.body,
          headers: request.headers,
          caller,
          address: request.ip,
          ...(values ? { values } : {}),
          customerId: served.customerId,
          filesUrl: `${onOwnOrigin ? appUrl : sharedBase}${versionPath}${UPLOAD_PATH}/`,
          appUrl,
          onOwnOrigin,
        }));
        if (note) noteAppAnswer(note, response.status, response.json ?? response.body);
        if (response.file) return sendFile(request, reply, response.file.files, response.file.row);
        return send(reply, response, onOwnOrigin);
      },
    };
    fastify.route(appRoute);
    await registerUploadRoute(fastify, appRoute, options.appsPath);
  };
}
