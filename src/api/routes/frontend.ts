import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FrontendBundleService } from '../../services/frontend-bundles.ts';
import { appUrlOf, type IntegrationPromptService } from '../../services/integration-prompts.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { problemResponses } from '../schemas.ts';
import { ApplicationParams } from './application-schemas.ts';
import type { AppOrigins } from '../../tools/app-origin.ts';

export interface FrontendRouteOptions {
  prompts: IntegrationPromptService;
  bundles: FrontendBundleService;
  /** `config.appsPath` (`/apps`): `{app_url}` = origin + appsPath + `/{applicationId}`. */
  appsPath: string;
  /** `config.publicUrl`; when null the origin is taken from the request (protocol + Host). */
  publicUrl: string | null;
  /** Each application's own origin: the `{app_url}` the integration prompts give (a frontend runs in a browser). */
  origins: AppOrigins;
  /** How long a download waits for a bundle being built before answering 202 (default 30 s; 0 answers 202 at once). */
  bundleWaitMs?: number;
  /** The `Retry-After` of a 202 (default 5 s). */
  retryAfterSeconds?: number;
}

export const IntegrationPromptsSchema = Type.Object(
  {
    buildFrontend: Type.String({ description: 'Markdown prompt: build a UI on this API.' }),
    testApi: Type.String({ description: 'Markdown prompt: write an end-to-end test suite for this API.' }),
    connectToExistingApp: Type.String({ description: "Markdown prompt: replace an existing frontend's data layer with this API." }),
  },
  { description: 'Integration prompts.' },
);

const BundlePendingSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Literal(202),
    detail: Type.String(),
    errors: Type.Array(Type.Object({ path: Type.String(), message: Type.String() })),
    jobId: Type.String(),
    serverVersion: Type.String(),
    retryAfterSeconds: Type.Integer(),
  },
  { description: 'The bundle is being built: retry after `retryAfterSeconds` (also in `Retry-After`).' },
);

const ZipResponse = {
  description: 'The zip of the built frontend (`index.html`, `config.js`, `schema.js`, `app.js`, `lib/*.js`, `styles.css`, `README.md`).',
  content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } },
};

/**
 * Integration prompts (spec endpoint 7) and the frontend bundle download (spec
 * endpoint 8). A download serves the bundle of the latest published version; when
 * it is not built yet, it queues the `frontend_bundle` job and waits for it up to
 * `bundleWaitMs`, then answers 202 with `Retry-After`.
 */
export function frontendRoutes(options: FrontendRouteOptions): FastifyPluginAsyncTypebox {
  const waitMs = options.bundleWaitMs ?? 30_000;
  const retryAfter = options.retryAfterSeconds ?? 5;
  const appUrl = (request: FastifyRequest, applicationId: string): string =>
    appUrlOf(options.publicUrl ?? `${request.protocol}://${request.host}`, options.appsPath, applicationId);

  return async (app) => {
    const common = { tags: ['deployments-assets'], security: MANAGEMENT_SECURITY };

    app.get(
      '/applications/:applicationId/integration-prompts',
      {
        schema: {
          ...common,
          tags: ['applications'],
          operationId: 'getIntegrationPrompts',
          summary: 'Prompts for coding assistants: build a frontend, test the API, connect an existing app',
          description:
            'Built from the latest published version; when none is published, from the saved definition, and the prompts then say the API is not served yet.',
          params: ApplicationParams,
          response: { 200: IntegrationPromptsSchema, ...problemResponses(404) },
        },
      },
      async (request) => {
        const { applicationId } = request.params;
        return options.prompts.get(request.principal.customerId, applicationId, options.origins.of(applicationId));
      },
    );

    app.get(
      '/applications/:applicationId/frontendBundle',
      {
        schema: {
          ...common,
          operationId: 'getFrontendBundle',
          summary: 'Download the built frontend of the latest published version (zip)',
          description: `Streams \`application/zip\`. Built once per published version by a \`frontend_bundle\` job and cached. When the bundle is not built yet, the job is queued and the request waits up to ${Math.round(waitMs / 1000)} s; if it is still building, the answer is 202 with \`Retry-After\`. 404 when no version is published.`,
          params: ApplicationParams,
          response: { 200: ZipResponse, 202: BundlePendingSchema, 304: Type.Null({ description: 'Not modified: the ETag of `If-None-Match` is current.' }), ...problemResponses(404, 500) },
        },
      },
      async (request, reply) => {
        const { applicationId } = request.params;
        const customerId = request.principal.customerId;
        const found = await options.bundles.request(customerId, applicationId, appUrl(request, applicationId));
        const bundle = found.state === 'ready' ? found.bundle : waitMs > 0 ? await options.bundles.waitFor(found, waitMs) : null;
        if (!bundle) {
          const pending = found as Extract<typeof found, { state: 'pending' }>;
          return reply
            .status(202)
            .header('retry-after', String(retryAfter))
            .type('application/json')
            .send({
              type: 'https://appbuilder.dev/problems/bundle-pending',
              title: 'Accepted',
              status: 202,
              detail: `The frontend bundle of version ${pending.serverVersion} is being built (job ${pending.job.id}); retry in ${retryAfter} s.`,
              errors: [],
              jobId: pending.job.id,
              serverVersion: pending.serverVersion,
              retryAfterSeconds: retryAfter,
            });
        }
        const etag = `"${bundle.sha256}"`;
        reply.header('etag', etag).header('cache-control', 'private, no-cache');
        if (request.headers['if-none-match'] === etag) return reply.status(304).send(null);
        return reply
          .status(200)
          .type('application/zip')
          .header('content-length', String(bundle.sizeBytes))
          .header('content-disposition', `attachment; filename="${bundle.filename}"`)
          .send(options.bundles.open(bundle));
      },
    );
  };
}
