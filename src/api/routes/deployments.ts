import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { DeploymentService } from '../../services/deployments.ts';
import type { Application } from '../../services/applications/view.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { problemResponses } from '../schemas.ts';
import { ApplicationParams, ApplicationSchema } from './application-schemas.ts';
import { PublishAnswerSchema } from './advisor.ts';
import type { Db } from '../../storage/db.ts';
import { idempotencyKeyOf, once } from '../../storage/idempotency.ts';

const VersionBody = Type.Object({
  serverVersion: Type.Optional(Type.String({ pattern: '^\\d+\\.\\d+\\.\\d+$', description: 'Defaults to the current serverVersion (publish) or every served version (unpublish).' })),
});

const PurgeBody = Type.Object({
  fieldIds: Type.Array(Type.String({ minLength: 1 }), {
    minItems: 1,
    maxItems: 1000,
    uniqueItems: true,
    description: 'Ids of fields (or models) removed from the definition whose columns (or tables) are to be dropped.',
  }),
});

/**
 * The publish answer names the version being published in `status.deployments` (state `pending`
 * until its job has served it), so it carries its URLs too (added for every Application answer,
 * src/api/served-urls.ts).
 */
function withPendingDeployment(application: Application, serverVersion: string | undefined): Application {
  if (!serverVersion || application.status.deployments.some((d) => d.serverVersion === serverVersion)) return application;
  const deployments = [{ serverVersion, state: 'pending' }, ...application.status.deployments];
  return { ...application, status: { ...application.status, deployments } };
}

/** The deployments group: publish (a `deployment` job; `Idempotency-Key` kept in `db`), unpublish, and purge. */
export function deploymentRoutes(deployments: DeploymentService, db?: Db): FastifyPluginAsyncTypebox {
  return async (app) => {
    const common = { tags: ['deployments-assets'], security: MANAGEMENT_SECURITY };

    app.post(
      '/applications/:applicationId/publish',
      {
        schema: {
          ...common,
          operationId: 'publishApplication',
          summary:
            'Queue a deployment: migrate the data schema and serve the version at {app_url}/api/v{serverVersion}/ (409, nothing queued, when stored rows would not convert)',
          description:
            "The answer's `status.deployments` names the version (state `pending` until the deployment job has served it) with its `apiUrl`, `docsUrl` and `openapiUrl`.",
          params: ApplicationParams,
          body: Type.Optional(VersionBody),
          response: { 202: PublishAnswerSchema, ...problemResponses(404, 409) },
        },
      },
      async (request, reply) => {
        reply.status(202);
        const publish = async () => {
          const { access, advice, ...application } = await deployments.publish(request.principal.customerId, request.params.applicationId, request.body?.serverVersion);
          return { ...withPendingDeployment(application, request.body?.serverVersion ?? application.serverVersion), access, advice };
        };
        const key = db ? idempotencyKeyOf(request.headers) : null;
        if (!db || key === null) return publish();
        // Idempotency-Key (storage/idempotency.ts): a retried publish answers the first one's answer, queueing nothing more.
        const { actor } = request.principal;
        const keyed = { scope: `publish:${request.params.applicationId}`, caller: `${actor.type}:${actor.id}`, key, method: 'POST', path: request.url, body: request.body };
        const answer = (await once(db, keyed, async () => ({ status: 202, body: String(reply.serialize(await publish())), headers: {} })))!;
        if (answer.headers['idempotent-replayed']) reply.header('idempotent-replayed', 'true');
        // The stored text is the serialised answer: sent as it is.
        return (reply as unknown as FastifyReply).type('application/json; charset=utf-8').send(answer.body);
      },
    );

    app.post(
      '/applications/:applicationId/unpublish',
      {
        schema: {
          ...common,
          operationId: 'unpublishApplication',
          summary: 'Stop serving one version, or all of them',
          params: ApplicationParams,
          body: Type.Optional(VersionBody),
          response: { 200: ApplicationSchema, ...problemResponses(404) },
        },
      },
      async (request) => deployments.unpublish(request.principal.customerId, request.params.applicationId, request.body?.serverVersion),
    );

    app.post(
      '/applications/:applicationId/purge',
      {
        config: { requiredRole: 'admin' },
        schema: {
          ...common,
          operationId: 'purgeApplicationFields',
          summary: 'Drop the columns of removed fields that no served version and no current definition use (409 naming a field still in use)',
          params: ApplicationParams,
          body: PurgeBody,
          response: { 200: ApplicationSchema, ...problemResponses(404, 409) },
        },
      },
      async (request) => deployments.purge(request.principal.customerId, request.params.applicationId, request.body.fieldIds),
    );
  };
}
