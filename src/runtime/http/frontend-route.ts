// The generated frontend of each published version, served on the application's own origin
// (docs/cors-and-frontend.md): `{app_url}/` is the most recently published served version,
// `{app_url}/v{serverVersion}/` a given one. It is the frontend bundle's files (frontend/bundle.ts)
// with `API_BASE_URL` the version's API path on the same origin (`/api/v{serverVersion}`), so the
// page calls its API with no CORS and no proxy. Only on the app's own origin: on the shared origin
// (the path form, beside the console and every other customer's app) nothing HTML is served.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../../errors.ts';
import type { Db } from '../../storage/db.ts';
import type { AppOrigins } from '../../tools/app-origin.ts';
import { bundleFiles } from '../../frontend/bundle.ts';
import type { CompiledApp } from '../compiled-app.ts';
import type { DeploymentRegistry } from '../registry.ts';

/** Where app-host.ts routes an app origin's paths other than `/api/…`, below `{appsPath}/{applicationId}`. */
export const FRONTEND_PREFIX = '/frontend';

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/** The page runs only its own files and talks only to its own origin (its API); images may come from anywhere over https. */
const FRONTEND_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob: https:; media-src 'self' https:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const VERSIONED = /^v(\d+\.\d+\.\d+)(\/.*)?$/;

interface ServedFile {
  content: string;
  type: string;
}

export interface ServedFrontendOptions {
  appsPath: string;
  db: Db;
  registry: DeploymentRegistry;
  origins: AppOrigins;
}

/** A version's files, made once per compiled version (kept with it). */
const filesOf = (() => {
  const cache = new WeakMap<CompiledApp, Map<string, ServedFile>>();
  return (app: CompiledApp): Map<string, ServedFile> => {
    let files = cache.get(app);
    if (!files) {
      files = new Map();
      for (const file of bundleFiles({ definition: app.definition, serverVersion: app.serverVersion, apiBaseUrl: `/api/v${app.serverVersion}` })) {
        const type = TYPES[file.path.split('.').pop() ?? ''];
        if (type) files.set(file.path, { content: file.content, type });
      }
      cache.set(app, files);
    }
    return files;
  };
})();

/** How long the latest version is remembered at most: a lost LISTEN connection may have missed a deployment's notice. */
const LATEST_TTL_MS = 10_000;

/** The most recently published version still served, remembered until a deployment of the application changes (or for LATEST_TTL_MS). */
function latestVersions(db: Db, registry: DeploymentRegistry): (applicationId: string) => Promise<string | null> {
  const latest = new Map<string, Promise<string | null>>();
  registry.onInvalidate((applicationId) => latest.delete(applicationId));
  return (applicationId) => {
    let version = latest.get(applicationId);
    if (!version) {
      version = db.kysely
        .selectFrom('appbuilder.deployments')
        .select('server_version')
        .where('application_id', '=', applicationId)
        .where('state', '=', 'active')
        .orderBy('published_at', 'desc')
        .orderBy('server_version', 'desc')
        .executeTakeFirst()
        .then((row) => row?.server_version ?? null);
      if (latest.size > 10_000) latest.clear();
      latest.set(applicationId, version);
      const forget = () => {
        if (latest.get(applicationId) === version) latest.delete(applicationId);
      };
      version.catch(forget);
      setTimeout(forget, LATEST_TTL_MS).unref();
    }
    return version;
  };
}

export function registerServedFrontend(fastify: FastifyInstance, options: ServedFrontendOptions): void {
  const latestOf = latestVersions(options.db, options.registry);
  const nothing = () => notFound('No published frontend here.');
  fastify.route({
    method: ['GET', 'HEAD'],
    url: `${options.appsPath}/:applicationId${FRONTEND_PREFIX}/*`,
    schema: { hide: true },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const { applicationId, '*': rest = '' } = request.params as { applicationId: string; '*'?: string };
      reply.header('x-content-type-options', 'nosniff');
      // Only on that application's own origin, never on the shared one.
      if (options.origins.applicationOf(request.headers.host) !== applicationId.toLowerCase()) throw nothing();
      const versioned = VERSIONED.exec(rest);
      // `/v1.0.0` without its slash: the page's relative links would resolve to the latest version's files.
      if (versioned && versioned[2] === undefined) return reply.redirect(`/v${versioned[1]}/`, 308);
      const serverVersion = versioned ? versioned[1] : await latestOf(applicationId);
      const served = serverVersion ? await options.registry.resolve(applicationId, serverVersion) : null;
      if (!served) throw nothing();
      const path = (versioned ? versioned[2].slice(1) : rest) || 'index.html';
      const file = filesOf(served.compiled).get(path);
      if (!file) throw notFound(`No file ${path} in the frontend of version ${served.compiled.serverVersion}.`);
      reply.header('content-security-policy', FRONTEND_CSP);
      // Revalidated on each load: `/` moves to each newly published version.
      reply.header('cache-control', 'no-cache');
      return reply.type(file.type).send(file.content);
    },
  });
}
