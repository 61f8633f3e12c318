import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AssistantService } from '../../assistant/service.ts';
import { OperationSchema } from '../../assistant/operations.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { DateTime, ListEnvelope, PageQuery, problemResponses, Uuid } from '../schemas.ts';
import { ApplicationSchema } from './application-schemas.ts';
import { MAX_MESSAGE_LENGTH } from '../../assistant/proposals.ts';

const ProposalSchema = Type.Object(
  {
    status: Type.Union(['proposed', 'invalid', 'unsupported', 'applied', 'discarded'].map((s) => Type.Literal(s))),
    baseVersion: Type.String(),
    operations: Type.Array(OperationSchema),
    predictedVersion: Type.Union([Type.String(), Type.Null()]),
    summary: Type.String(),
    warnings: Type.Array(Type.String()),
    errors: Type.Array(Type.Object({ path: Type.String(), message: Type.String() })),
    appliedVersion: Type.Optional(Type.String()),
  },
  { title: 'AssistantProposal' },
);

const MessageSchema = Type.Object(
  {
    id: Uuid,
    projectId: Uuid,
    applicationId: Uuid,
    role: Type.Union([Type.Literal('user'), Type.Literal('assistant')]),
    inReplyTo: Type.Union([Uuid, Type.Null()]),
    content: Type.String(),
    proposal: Type.Union([ProposalSchema, Type.Null()]),
    createdAt: DateTime,
  },
  { title: 'AssistantMessage' },
);

const ProjectParams = Type.Object({ projectId: Uuid });
const MessageParams = Type.Object({ projectId: Uuid, messageId: Uuid });

/**
 * The ai-assistant group (DESIGN §15): messages per project; a reply carries a proposal
 * that is applied (one change, one version) or discarded only when asked.
 */
export function assistantRoutes(assistant: AssistantService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const common = { tags: ['ai-assistant'], security: MANAGEMENT_SECURITY };
    const base = '/projects/:projectId/assistant/messages';

    app.post(
      base,
      {
        schema: {
          ...common,
          operationId: 'postAssistantMessage',
          summary: "Ask for a change of an application in plain language; answers the assistant's reply with a checked proposal",
          params: ProjectParams,
          // The length limit and blankness are checked by the service after trimming, so its error says so plainly;
          // the description states both for the document's readers.
          body: Type.Object({
            content: Type.String({ maxLength: 100_000, description: `What to change, in plain language: not empty or only spaces, at most ${MAX_MESSAGE_LENGTH} characters once trimmed (else 400).` }),
            applicationId: Uuid,
          }),
          response: { 201: MessageSchema, ...problemResponses(404) },
        },
      },
      async (request, reply) => {
        reply.status(201);
        return assistant.post(request.principal.customerId, request.params.projectId, request.body);
      },
    );

    app.get(
      base,
      {
        schema: {
          ...common,
          operationId: 'listAssistantMessages',
          summary: 'List the conversation (both roles, in order)',
          params: ProjectParams,
          querystring: Type.Composite([PageQuery, Type.Object({ applicationId: Type.Optional(Uuid) })]),
          response: { 200: ListEnvelope(MessageSchema), ...problemResponses(404) },
        },
      },
      async (request) => {
        const { applicationId, limit, offset } = request.query;
        const page = await assistant.list(request.principal.customerId, request.params.projectId, applicationId, limit, offset);
        return { items: page.items, metadata: { total: page.total } };
      },
    );

    app.post(
      `${base}/:messageId/apply`,
      {
        schema: {
          ...common,
          operationId: 'applyAssistantProposal',
          summary: "Apply a reply's proposal as one change and one version; 409 when the application moved on or it is not proposed",
          params: MessageParams,
          response: { 200: ApplicationSchema, ...problemResponses(404, 409) },
        },
      },
      async (request) => assistant.apply(request.principal.customerId, request.params.projectId, request.params.messageId, request.principal.actor),
    );

    app.post(
      `${base}/:messageId/discard`,
      {
        schema: {
          ...common,
          operationId: 'discardAssistantProposal',
          summary: "Discard a reply's proposal",
          params: MessageParams,
          response: { 200: MessageSchema, ...problemResponses(404, 409) },
        },
      },
      async (request) => assistant.discard(request.principal.customerId, request.params.projectId, request.params.messageId),
    );
  };
}
