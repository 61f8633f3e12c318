import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { methodNotAllowed, notFound } from '../../errors.ts';
import type { CompiledApp } from '../compiled-app.ts';
import type { DeploymentRegistry } from '../registry.ts';
import { callerOf, type BuilderOf } from './app-caller.ts';
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
import { acceptImportBodies } from './import-routes.ts';
import { answerHeaders, SHARED_ORIGIN_CSP } from './answer-headers.ts';
import type { AppOrigins } from '../../tools/app-origin.ts';
import { answerPreflight, appCorsPolicy, setCorsHeaders } from './cors.ts';
import { idempotentWrite } from './idempotent-write.ts';
import type { Db } from '../../storage/db.ts';
import { compressFor, COMPRESS_MIN_BYTES, varyOnEncoding } from './compress.ts';

export interface GeneratedAppsOptions {
  appsPath: string;
  registry: DeploymentRegistry;
  auth: EndUserAuth;
  /** The holder of the management credentials these headers carry (role, projects); throws 401 when they are bad. */
  builderPrincipal: BuilderOf;
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
  /** Where `Idempotency-Key`s are kept (idempotent-write.ts); without it the header is ignored. */
  db?: Db;
}

const VERSION = /^v(\d+\.\d+\.\d+)$/;

const asText = (text: unknown) => text as string;

/** JSON text as the answer, compressed when it is long and the client takes br or gzip (compress.ts). */
function sendJson(request: FastifyRequest, reply: FastifyReply, text: string, headers: Record<string, string>): FastifyReply {
  reply.type('application/json; charset=utf-8');
  if (text.length >= COMPRESS_MIN_BYTES && headers['content-encoding'] === undefined && headers.etag === undefined) {
    reply.header('vary', varyOnEncoding(reply.getHeader('vary')));
    const packed = compressFor(text, request.headers['accept-encoding']);
    if (packed) return reply.header('content-encoding', packed.encoding).send(packed.body);
  }
  return reply.serializer(asText).send(text);
}

/** The answer, with the headers the origin allows (answer-headers.ts): JSON or plain text only on the shared origin. */
function send(request: FastifyRequest, reply: FastifyReply, response: AppResponse, onOwnOrigin: boolean): FastifyReply {
  reply.status(response.status);
  const headers = answerHeaders(response.headers, onOwnOrigin, response.serviceHeaders);
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  if (response.stream) return reply.send(Readable.from(response.stream));
  if (response.json !== undefined) return sendJson(request, reply, response.json, headers);
  if (response.body === undefined) return reply.send();
  if (typeof response.body === 'string' && headers['content-type']) return reply.send(response.body);
  return sendJson(request, reply, JSON.stringify(response.body), headers);
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
    acceptImportBodies(fastify);
    const appRoute: RouteOptions = {
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
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
        // CORS_ORIGINS, on the app's own origin only (cors.ts); set first so error answers carry it too.
        const cors = onOwnOrigin ? await appCorsPolicy(options.appValues, applicationId) : null;
        setCorsHeaders(request, reply, cors);
        if (request.method === 'OPTIONS') {
          const allow = routerOf(served.compiled).allowed(path);
          if (allow.length === 0) throw notFound(`No route for ${path} in this application.`);
          return answerPreflight(request, reply, cors, allow);
        }
        const route = routerOf(served.compiled).find(request.method === 'HEAD' ? 'GET' : request.method, path);
        if (!route) {
          const allow = routerOf(served.compiled).allowed(path);
          if (allow.length > 0) throw methodNotAllowed(request.method, path, allow);
          throw notFound(`No route for ${request.method} ${path} in this application.`);
        }
        if (note) note.route = route.template;
        const resolveCaller = () => callerOf(request, served, options, route.template);
        const caller = await (options.rateLimits ? options.rateLimits.caller(request, reply, resolveCaller) : resolveCaller());
        if (note && caller.kind === 'user') note.userId = String(caller.user.id);
        const values = options.appValues ? await options.appValues.forApplication(applicationId) : undefined;
        const appUrl = options.origins.of(applicationId);
        const versionPath = `/api/v${served.compiled.serverVersion}`;
        const sharedBase = `${(options.publicUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '')}${options.appsPath}/${applicationId}`;
        // The write path's rules and defaults read `env` from here (secrets/current-env.ts).
        const handle = () => withEnv(values?.env ?? {}, () => route.handler({
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
        const keyed = { applicationId, method: request.method, path: `${versionPath}${path}`, template: route.template, headers: request.headers, body: request.body, caller, address: request.ip };
        const response = await idempotentWrite(options.db, keyed, handle);
        if (note) noteAppAnswer(note, response.status, response.json ?? response.body);
        if (response.file) return sendFile(request, reply, response.file.files, response.file.row);
        return send(request, reply, response, onOwnOrigin);
      },
    };
    fastify.route(appRoute);
    await registerUploadRoute(fastify, appRoute, options.appsPath);
  };
}
