import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/index.ts';
import { AppDefinitionSchema } from '../../definition/schema.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { DateTime, ListEnvelope, PageQuery, problemResponses, Uuid } from '../schemas.ts';
import { JobSummarySchema } from './application-schemas.ts';
import { ACCESS_MODES } from '../../specifications/access-proposal.ts';
import { AppliedApplicationSchema, OnErrorSchema } from './data-imports.ts';
import { AccessSummarySchema, AdviceSchema } from './advisor.ts';
import { accessSummaryOfDefinition } from '../../advisor/summary.ts';
import type { AppDefinition } from '../../definition/schema.ts';
import { nameComponents } from '../openapi.ts';

/** Who may do what under a definition, and the advice (advisor/): added to the specification and apply answers. */
const accessMembers = {
  access: Type.Optional(AccessSummarySchema),
  advice: Type.Optional(Type.Array(AdviceSchema, { description: 'What the rules let end users do that may not be meant, or nothing at all.' })),
};
const NO_APPLICATION = '00000000-0000-4000-8000-000000000000';
function withAccess<T extends { content?: unknown; scode?: unknown; id?: string; serverVersion?: string }>(answer: T): T {
  const definition = answer.content ?? answer.scode;
  if (!definition) return answer;
  return { ...answer, ...accessSummaryOfDefinition(answer.scode ? (answer.id ?? NO_APPLICATION) : NO_APPLICATION, answer.serverVersion ?? '0.0.0', definition as AppDefinition) };
}
const AppliedSchema = Type.Intersect([AppliedApplicationSchema, Type.Object(accessMembers)]);
nameComponents({ AppliedSpecification: AppliedSchema });

const SourceSchema = Type.Object({
  attachmentId: Uuid,
  locator: Type.String({ description: 'Where in the attachment: `line 12`, `#/components/schemas/Pet`, `column "price"`, `table public.film`, `page 3`.' }),
});

const Count = Type.Integer({ minimum: 0 });
const SummarySchema = Type.Object({
  attachments: Count,
  models: Count,
  fields: Count,
  relationships: Count,
  actions: Count,
  triggers: Count,
  requirements: Count,
  personas: Count,
  pages: Count,
  warnings: Count,
});

export const SpecificationSchema = Type.Object(
  {
    id: Uuid,
    projectId: Uuid,
    name: Type.String(),
    attachmentIds: Type.Array(Uuid),
    status: Type.Union(['queued', 'running', 'succeeded', 'failed'].map((s) => Type.Literal(s))),
    createdAt: DateTime,
    updatedAt: DateTime,
    errorMessage: Type.Optional(Type.String()),
    content: Type.Union([AppDefinitionSchema, Type.Null()], { description: 'A definition (the members of `scode`) that passes validation; null until the job succeeds.' }),
    provenance: Type.Record(Type.String(), SourceSchema, { description: 'JSON pointer of each produced element in `content` → where it came from.' }),
    warnings: Type.Array(
      Type.Object({
        message: Type.String(),
        attachmentId: Type.Optional(Type.String()),
        locator: Type.Optional(Type.String()),
        path: Type.Optional(Type.String()),
      }),
      { description: 'What was skipped, guessed or in conflict, and why.' },
    ),
    summary: Type.Union([SummarySchema, Type.Null()], { description: 'What the content holds; null until the job succeeds.' }),
    ...accessMembers,
  },
  { $id: 'Specification' },
);

const ProjectParams = Type.Object({ projectId: Uuid });
const SpecificationParams = Type.Object({ projectId: Uuid, specificationId: Uuid });

/** The specifications group (DESIGN §13) and the project's jobs. */
export function specificationRoutes(services: Services): FastifyPluginAsyncTypebox {
  const { specifications } = services;
  return async (app) => {
    const common = { tags: ['specifications'], security: MANAGEMENT_SECURITY };
    const base = '/projects/:projectId/specifications';

    app.post(
      base,
      {
        schema: {
          ...common,
          operationId: 'createSpecification',
          summary: 'Generate a specification from attachments: a specification_generation job (422 when an attachment is not the project’s)',
          params: ProjectParams,
          body: Type.Object({
            attachmentIds: Type.Array(Uuid, { minItems: 1, maxItems: 50, uniqueItems: true }),
            name: Type.Optional(Type.String({ maxLength: 200 })),
            instructions: Type.Optional(Type.String({ maxLength: 10_000 })),
            access: Type.Optional(
              Type.Union(ACCESS_MODES.map((mode) => Type.Literal(mode)), {
                description:
                  'Access proposed for end users: owner (default; sign-up, owners reach their records, reference data public, the rest for signed-in users), private (only administrators), public-read (anyone reads, owners write theirs).',
              }),
            ),
            force: Type.Optional(
              Type.Boolean({
                description:
                  'Go past a part of a document that cannot be read (a SQL CREATE TABLE, a PDF page) instead of failing the specification: the part is left out and a warning names it with its line or page and the reason. Default false.',
              }),
            ),
          }),
          response: {
            202: Type.Object({ id: Uuid, status: Type.Literal('queued'), jobId: Uuid }, { title: 'SpecificationQueued' }),
            ...problemResponses(404, 422),
          },
        },
      },
      async (request, reply) => {
        reply.status(202);
        return specifications.create(request.principal.customerId, request.params.projectId, request.body);
      },
    );

    app.get(
      base,
      {
        schema: {
          ...common,
          operationId: 'listSpecifications',
          summary: "List a project's specifications",
          params: ProjectParams,
          querystring: PageQuery,
          response: { 200: ListEnvelope(SpecificationSchema), ...problemResponses(404) },
        },
      },
      async (request) => {
        const page = await specifications.list(request.principal.customerId, request.params.projectId, request.query.limit, request.query.offset);
        return { items: page.items, metadata: { total: page.total } };
      },
    );

    app.get(
      `${base}/:specificationId`,
      {
        schema: { ...common, operationId: 'getSpecification', summary: 'A specification', params: SpecificationParams, response: { 200: SpecificationSchema, ...problemResponses(404) } },
      },
      async (request) => withAccess(await specifications.get(request.principal.customerId, request.params.projectId, request.params.specificationId)),
    );

    app.delete(
      `${base}/:specificationId`,
      {
        schema: { ...common, operationId: 'deleteSpecification', summary: 'Delete a specification', params: SpecificationParams, response: { 204: Type.Null(), ...problemResponses(404) } },
      },
      async (request, reply) => {
        await specifications.delete(request.principal.customerId, request.params.projectId, request.params.specificationId);
        return reply.status(204).send(null);
      },
    );

    app.post(
      `${base}/:specificationId/apply`,
      {
        schema: {
          ...common,
          operationId: 'applySpecification',
          summary: 'Apply: a new application (201), or one change adding what an application of the project lacks (200; 409 listing clashes)',
          params: SpecificationParams,
          description:
            'With `publish: true` the applied version is published too (a deployment job); with `importData: true` as well, the rows of the specification’s attachments are imported into it once it is served (a `data_import` job, listed in the answer’s `status.jobs` with `metadata.dataImportId`; its report at `GET …/applications/{applicationId}/data-imports/{dataImportId}`).',
          body: Type.Optional(
            Type.Object({
              applicationId: Type.Optional(Uuid),
              name: Type.Optional(Type.String({ maxLength: 200 })),
              publish: Type.Optional(Type.Boolean({ description: 'Publish the applied version (as POST …/publish).' })),
              importData: Type.Optional(Type.Boolean({ description: 'With publish: import the rows of the attachments into the published version.' })),
              onError: Type.Optional(OnErrorSchema),
            }),
          ),
          response: { 200: AppliedSchema, 201: AppliedSchema, ...problemResponses(404, 409) },
        },
      },
      async (request, reply) => {
        const { publish, importData, onError, ...input } = request.body ?? {};
        const customerId = request.principal.customerId;
        const { created, application } = await specifications.apply(customerId, request.params.projectId, request.params.specificationId, input);
        if (!publish) return reply.status(created ? 201 : 200).send(withAccess(application));
        // apply → publish → import: the import job waits for the deployment to serve the version
        await services.deployments.publish(customerId, application.id, application.serverVersion);
        const dataImport = importData
          ? await services.dataImports.create(customerId, application.id, { specificationId: request.params.specificationId, version: application.serverVersion, ...(onError ? { onError } : {}) })
          : undefined;
        return reply.status(created ? 201 : 200).send(withAccess({ ...(await services.applications.get(customerId, application.id)), ...(dataImport ? { dataImport } : {}) }));
      },
    );

    app.get(
      '/projects/:projectId/jobs',
      {
        schema: {
          tags: ['projects'],
          security: MANAGEMENT_SECURITY,
          operationId: 'listProjectJobs',
          summary: "A project's jobs, newest first (the members of the status endpoint)",
          params: ProjectParams,
          querystring: Type.Composite([PageQuery, Type.Object({ jobType: Type.Optional(Type.String({ maxLength: 64 })) })]),
          response: { 200: ListEnvelope(JobSummarySchema), ...problemResponses(404) },
        },
      },
      async (request) => {
        const { limit, offset, jobType } = request.query;
        const page = await specifications.jobsOf(request.principal.customerId, request.params.projectId, limit, offset, jobType);
        return { items: page.items, metadata: { total: page.total } };
      },
    );
  };
}
