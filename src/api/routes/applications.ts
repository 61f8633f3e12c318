import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/index.ts';
import type { AppDefinition } from '../../definition/schema.ts';
import { AppDefinitionSchema } from '../../definition/schema.ts';
import { toJobSummary } from '../../jobs/store.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { badRequest, forbidden } from '../../errors.ts';
import { roleAtLeast } from '../../access/roles.ts';
import { ListEnvelope, PageQuery, problemResponses, Uuid } from '../schemas.ts';
import { ApplicationParams, ApplicationSchema, JobSummarySchema } from './application-schemas.ts';
import { applyEdit, MinimalEditResponse } from './application-edit.ts';
import { addServedUrls } from '../served-urls.ts';

/**
 * Applications, core: create, read, list, replace the definition, delete, status. Not encapsulated
 * (Fastify's `skip-override`), so its hook adding the served versions' URLs to every Application
 * answer (served-urls.ts) also covers the application route groups registered after it: edits,
 * versions, publish and unpublish.
 */
export function applicationRoutes(services: Services): FastifyPluginAsyncTypebox {
  const plugin: FastifyPluginAsyncTypebox = async (app) => {
    addServedUrls(app, services.config, services.origins);
    const common = { tags: ['applications'], security: MANAGEMENT_SECURITY };
    const apps = services.applications;

    app.post(
      '/applications',
      {
        schema: {
          ...common,
          operationId: 'createApplication',
          summary: 'Create an application from a definition, or from a backup (`fromBackup`)',
          description:
            'With `scode`: a new application of that definition. With `fromBackup` (the admin role): a new application with the definition, versions, served versions, rows, files, variables, secrets and end users of that backup of any application of the customer; secrets and factors the master key cannot open (an archive of another service) are left out.',
          body: Type.Object({
            projectId: Uuid,
            name: Type.Optional(Type.String({ maxLength: 200 })),
            scode: Type.Optional(AppDefinitionSchema),
            fromBackup: Type.Optional(Type.String({ format: 'uuid', description: 'A backup id (`GET …/applications/{applicationId}/backups`): the new application is a copy of it.' })),
          }),
          response: { 201: ApplicationSchema, ...problemResponses(403, 404, 409, 422) },
        },
      },
      async (request, reply) => {
        const { fromBackup, scode, ...rest } = request.body;
        if ((fromBackup === undefined) === (scode === undefined)) {
          throw badRequest('Give either scode (a definition) or fromBackup (a backup id).', [{ path: fromBackup === undefined ? '/scode' : '/fromBackup', message: fromBackup === undefined ? 'is required' : 'goes without scode' }]);
        }
        reply.status(201);
        if (fromBackup !== undefined) {
          if (!roleAtLeast(request.principal.role, 'admin')) throw forbidden(`Creating an application from a backup needs the admin role (or higher); the caller's role is ${request.principal.role}.`);
          return services.backups.createFromBackup(request.principal.customerId, { ...rest, fromBackup });
        }
        return apps.create(request.principal.customerId, { ...rest, scode });
      },
    );

    app.get(
      '/applications',
      {
        schema: {
          ...common,
          operationId: 'listApplications',
          summary: 'List applications, optionally of one project',
          querystring: Type.Composite([PageQuery, Type.Object({ projectId: Type.Optional(Uuid) })]),
          response: { 200: ListEnvelope(ApplicationSchema), ...problemResponses(404) },
        },
      },
      async (request) => {
        const { limit, offset, projectId } = request.query;
        const page = await apps.list(request.principal.customerId, projectId, limit, offset, request.principal.projectIds);
        return { items: page.items, metadata: { total: page.total } };
      },
    );

    app.get(
      '/applications/:applicationId',
      {
        schema: {
          ...common,
          operationId: 'getApplication',
          summary: 'Get an application',
          params: ApplicationParams,
          response: { 200: ApplicationSchema, ...problemResponses(404) },
        },
      },
      async (request) => apps.get(request.principal.customerId, request.params.applicationId),
    );

    app.put(
      '/applications/:applicationId/scode',
      {
        schema: {
          ...common,
          operationId: 'replaceApplicationDefinition',
          summary: 'Replace the whole definition (a new version)',
          params: ApplicationParams,
          body: AppDefinitionSchema,
          response: { 200: ApplicationSchema, 204: MinimalEditResponse, ...problemResponses(404, 409, 412) },
        },
      },
      async (request, reply) => applyEdit(services, request, reply, () => request.body as AppDefinition),
    );

    app.delete(
      '/applications/:applicationId',
      {
        config: { requiredRole: 'admin' },
        schema: {
          ...common,
          operationId: 'deleteApplication',
          summary: 'Delete an application and its data',
          params: ApplicationParams,
          response: { 204: Type.Null(), ...problemResponses(404) },
        },
      },
      async (request, reply) => {
        await apps.delete(request.principal.customerId, request.params.applicationId);
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/applications/:applicationId/generate',
      {
        schema: {
          ...common,
          operationId: 'generateModels',
          summary: 'Queue a generation job that builds models from the domainModel (a new version when it succeeds)',
          params: ApplicationParams,
          response: { 202: ApplicationSchema, ...problemResponses(404, 409) },
        },
      },
      async (request, reply) => {
        reply.status(202);
        return services.generation.request(request.principal.customerId, request.params.applicationId);
      },
    );

    app.get(
      '/applications/:applicationId/status',
      {
        schema: {
          ...common,
          operationId: 'getApplicationStatus',
          summary: "The application's jobs (reduced members)",
          params: ApplicationParams,
          response: { 200: Type.Object({ jobs: Type.Array(JobSummarySchema) }), ...problemResponses(404) },
        },
      },
      async (request) => {
        const application = await apps.get(request.principal.customerId, request.params.applicationId);
        return { jobs: application.status.jobs.map(toJobSummary) };
      },
    );
  };
  return Object.assign(plugin, { [Symbol.for('skip-override')]: true });
}
