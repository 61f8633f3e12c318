import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/index.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { ListEnvelope, PageQuery, problemResponses, Uuid } from '../schemas.ts';

export const ProjectSchema = Type.Object({ id: Uuid, name: Type.String(), components: Type.Array(Type.String()) }, { $id: 'Project' });

/** The spec's "project list item": a project's members, under its own name in the document. */
export const ProjectListItemSchema = Type.Object(ProjectSchema.properties, { $id: 'ProjectListItem' });

const ProjectParams = Type.Object({ projectId: Uuid });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Components = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 });

function view(project: { id: string; name: string; components: string[] }) {
  return { id: project.id, name: project.name, components: project.components };
}

/** The projects group (spec endpoints 9 and 10 and the rest of the group). */
export function projectRoutes(services: Services): FastifyPluginAsyncTypebox {
  return async (app) => {
    const common = { tags: ['projects'], security: MANAGEMENT_SECURITY };

    app.post(
      '/projects',
      {
        config: { unscopedOnly: true },
        schema: {
          ...common,
          operationId: 'createProject',
          summary: 'Create a project',
          body: Type.Object({ name: Name, components: Type.Optional(Components) }),
          response: { 201: ProjectSchema, ...problemResponses() },
        },
      },
      async (request, reply) => {
        reply.status(201);
        return view(await services.projects.create(request.principal.customerId, request.body));
      },
    );

    app.get(
      '/projects',
      {
        schema: {
          ...common,
          operationId: 'listProjects',
          summary: 'List projects',
          querystring: PageQuery,
          response: { 200: ListEnvelope(ProjectListItemSchema), ...problemResponses() },
        },
      },
      async (request) => {
        const page = await services.projects.list(request.principal.customerId, request.query.limit, request.query.offset, request.principal.projectIds);
        return { items: page.items.map(view), metadata: { total: page.total } };
      },
    );

    app.get(
      '/projects/:projectId',
      {
        schema: { ...common, operationId: 'getProject', summary: 'Get a project', params: ProjectParams, response: { 200: ProjectSchema, ...problemResponses(404) } },
      },
      async (request) => view(await services.projects.get(request.principal.customerId, request.params.projectId)),
    );

    app.patch(
      '/projects/:projectId',
      {
        schema: {
          ...common,
          operationId: 'updateProject',
          summary: 'Rename a project or change its components',
          params: ProjectParams,
          body: Type.Object({ name: Type.Optional(Name), components: Type.Optional(Components) }, { minProperties: 1 }),
          response: { 200: ProjectSchema, ...problemResponses(404) },
        },
      },
      async (request) => view(await services.projects.update(request.principal.customerId, request.params.projectId, request.body)),
    );

    app.delete(
      '/projects/:projectId',
      {
        config: { requiredRole: 'admin' },
        schema: {
          ...common,
          operationId: 'deleteProject',
          summary: 'Delete a project with its applications and their data (atomic)',
          params: ProjectParams,
          response: { 204: Type.Null(), ...problemResponses(404) },
        },
      },
      async (request, reply) => {
        await services.projects.delete(request.principal.customerId, request.params.projectId);
        return reply.status(204).send(null);
      },
    );
  };
}
