import Fastify, { LogController, type FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { sql } from 'kysely';
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Services } from '../services/index.ts';
import { Problem } from '../errors.ts';
import { requireApiClient } from './auth.ts';
import { registerMetrics } from './metrics.ts';
import { consolePlugin } from '../console/plugin.ts';
import { absentBodies } from './absent-body.ts';
import { registerProblemHandlers, sendProblem } from './problem.ts';
import { registerRequestScopes } from '../storage/request-scope.ts';
import { ProblemSchema } from './schemas.ts';
import { LICENSE, namedSchemaOptions } from './openapi.ts';
import './named-schemas.ts';
import { validatorCompiler } from './validation.ts';
import { useJsonBodies } from './json-body.ts';
import { logRequests, loggerOptions, type LogOptions } from './logging.ts';
import { oauthRoutes } from './routes/oauth.ts';
import { customerRoutes } from './routes/customers.ts';
import { projectRoutes } from './routes/projects.ts';
import { applicationRoutes } from './routes/applications.ts';
import { modelRoutes } from './routes/models.ts';
import { actionRoutes } from './routes/actions.ts';
import { sectionRoutes } from './routes/sections.ts';
import { versionRoutes } from './routes/versions.ts';
import { deploymentRoutes } from './routes/deployments.ts';
import { frontendRoutes } from './routes/frontend.ts';
import { runRoutes } from './routes/runs.ts';
import { signedFileRoutes, storageRoutes } from './routes/storage.ts';
import { monitoringRoutes } from './routes/monitoring.ts';
import { advisorRoutes } from './routes/advisor.ts';
import { applicationConfigurationRoutes, projectConfigurationRoutes } from './routes/configuration.ts';
import { assistantRoutes } from './routes/assistant.ts';
import { attachmentRoutes } from './routes/attachments.ts';
import { specificationRoutes } from './routes/specifications.ts';
import { figmaRoutes } from './routes/figma.ts';
import { builderRoutes } from './routes/builders.ts';
import { auditRoutes } from './routes/audit.ts';
import { dataImportRoutes } from './routes/data-imports.ts';
import { backupRoutes } from './routes/backups.ts';
import { guardManagementRoutes } from '../access/guard.ts';
import { recordManagementWrites } from '../access/audit.ts';
import type { AppOrigins } from '../tools/app-origin.ts';
import { routeByHost } from './app-host.ts';

export const INTERFACE_VERSION = '0.0.5';

/** The management API answers JSON, files and zips: never a page, so nothing in it may run, frame or be sniffed. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'";

function apiAnswerHeaders(scope: FastifyInstance): void {
  scope.addHook('onSend', async (_request, reply) => {
    reply.header('x-content-type-options', 'nosniff');
    // A stored file's own (sandboxed) policy stays.
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', API_CSP);
  });
}

export interface ServerOptions {
  services: Services;
  /** Pino options; `stream` lets tests read the log. */
  logger?: false | LogOptions;
  /** Route groups mounted beside the management API (the generated apps, later). */
  extraPlugins?: ((app: FastifyInstance) => Promise<void>)[];
  /** Whether the management API (and its token route, docs and OpenAPI) is served; false for `--role runtime`. */
  management?: boolean;
  /** Each application's own origin: a request whose Host names an application is served as that application only (api/app-host.ts). */
  appOrigins?: AppOrigins;
}

export async function buildServer({ services, logger = false, extraPlugins = [], management: serveManagement = true, appOrigins }: ServerOptions): Promise<FastifyInstance> {
  const { config } = services;
  const app = Fastify({
    // Tokens and keys never reach the logs, nor query strings; one entry per request, at debug.
    logger: logger === false ? false : await loggerOptions(logger),
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    return503OnClosing: true,
    ...(appOrigins ? { rewriteUrl: routeByHost(appOrigins, config.appsPath) } : {}),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // Definitions keep members we do not know (DESIGN §4); a schema-driven serializer
  // would drop them. Response schemas still document every operation in OpenAPI.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  registerProblemHandlers(app);
  // A handler's statements are cancelled when its client goes away (storage/request-scope.ts).
  registerRequestScopes(app);
  // No hook (and no promise per request) when nothing is logged.
  if (logger !== false) logRequests(app);
  app.addSchema(ProblemSchema);
  // JSON bodies only (415 otherwise), hostile values refused at the parser; forms only for the token.
  useJsonBodies(app);
  await app.register(rateLimit, {
    global: false,
    // Thrown by the plugin, so it reaches the problem handler like any other error.
    errorResponseBuilder: (_request, context) => new Problem(429, `Too many requests; retry in ${Math.ceil(context.ttl / 1000)} s.`),
  });
  registerMetrics(app, config.metricsPublic);

  // Named components and `$ref`s, validator keywords out, described tags (api/openapi.ts).
  const named = namedSchemaOptions(app);
  await app.register(swagger, {
    ...named.options,
    openapi: {
      openapi: '3.1.0',
      info: { title: 'appbuilder', version: INTERFACE_VERSION, description: 'Application builder service: management API.', license: LICENSE },
      servers: [{ url: '/' }],
      components: {
        schemas: named.schemas,
        securitySchemes: {
          builderBearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          apiClient: { type: 'apiKey', in: 'header', name: 'x-svc-api-client' },
          apiCredentials: {
            type: 'oauth2',
            flows: { clientCredentials: { tokenUrl: `${config.basePath}/oauth/token`, scopes: {} } },
          },
        },
      },
    },
  });
  if (serveManagement) await app.register(swaggerUi, { routePrefix: `${config.basePath}/docs`, staticCSP: true });

  if (serveManagement) app.get(`${config.basePath}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await sql`select 1`.execute(services.db.kysely);
      return { status: 'ready' };
    } catch {
      return sendProblem(reply, new Problem(503, 'The database does not answer.'));
    }
  });
  // A runtime process (`--role runtime`) serves the generated apps and its health only (DESIGN §1).
  if (!serveManagement) {
    for (const plugin of extraPlugins) await app.register(plugin);
    return app;
  }

  await app.register(
    async (scope) => {
      apiAnswerHeaders(scope);
      await scope.register(formbody);
      await scope.register(oauthRoutes(services));
      // Signed file URLs carry their own grant (DESIGN §12): no credentials.
      await scope.register(signedFileRoutes(services));
    },
    { prefix: config.basePath },
  );
  const management = async (scope: FastifyInstance, prefix: string, plugins: ((s: Services) => FastifyPluginAsyncTypebox)[]) => {
    await scope.register(
      async (child) => {
        apiAnswerHeaders(child);
        requireApiClient(child, services.tokens);
        // Roles and project scope (before the body is read), then the audit of every write (access/).
        guardManagementRoutes(child, services.db);
        recordManagementWrites(child, services.db);
        absentBodies(child);
        for (const plugin of plugins) await child.register(plugin(services));
      },
      { prefix },
    );
  };
  const applicationGroups = [
    customerRoutes,
    applicationRoutes,
    modelRoutes,
    actionRoutes,
    sectionRoutes,
    versionRoutes,
    (s: Services) => deploymentRoutes(s.deployments, s.db),
    (s: Services) => runRoutes(s.runs),
    storageRoutes,
    (s: Services) => monitoringRoutes(s.monitoring),
    (s: Services) => advisorRoutes(s.advisor),
    applicationConfigurationRoutes,
    builderRoutes,
    auditRoutes,
    dataImportRoutes,
    backupRoutes,
    (s: Services) =>
      frontendRoutes({
        prompts: s.integrationPrompts,
        bundles: s.frontendBundles,
        appsPath: s.config.appsPath,
        publicUrl: s.config.publicUrl,
        origins: s.origins,
        bundleWaitMs: s.config.bundleWaitSeconds * 1000,
      }),
  ];
  // Messages are stored per project, so the group lives under the projects prefix (DESIGN §15).
  const assistantGroup = (s: Services) => assistantRoutes(s.assistant);
  if (config.projectsPath === config.basePath) {
    await management(app, config.basePath, [...applicationGroups, projectRoutes, assistantGroup, projectConfigurationRoutes, attachmentRoutes, specificationRoutes, figmaRoutes]);
  } else {
    await management(app, config.basePath, applicationGroups);
    await management(app, config.projectsPath, [projectRoutes, assistantGroup, projectConfigurationRoutes, attachmentRoutes, specificationRoutes, figmaRoutes]);
  }
  await app.register(consolePlugin({ basePath: config.basePath, projectsPath: config.projectsPath, appsPath: config.appsPath }));
  for (const plugin of extraPlugins) await app.register(plugin);
  return app;
}
