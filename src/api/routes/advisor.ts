// Explain and the access matrix (docs/explain-and-advice.md): what a rule decided for a caller,
// and who may do what in a version.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AdvisorService } from '../../advisor/service.ts';
import type { ExplainInput } from '../../advisor/explain.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { nameComponents } from '../openapi.ts';
import { problemResponses } from '../schemas.ts';
import { ApplicationParams, ApplicationSchema } from './application-schemas.ts';

const Version = Type.String({ pattern: '^\\d+\\.\\d+\\.\\d+$' });

const ExplainBody = Type.Object({
  version: Type.Optional(Version),
  as: Type.Union([Type.Object({ userId: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }), Type.Literal('anonymous')], {
    description: 'The end user (a record of the user model) or `"anonymous"`.',
  }),
  request: Type.Object(
    {
      method: Type.Union(['GET', 'POST', 'PATCH', 'PUT', 'DELETE'].map((m) => Type.Literal(m))),
      path: Type.String({ minLength: 1, maxLength: 2000, description: 'Below the version prefix, e.g. `/toDos/{id}` (a query string may follow).' }),
      query: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 4000 }))),
      body: Type.Optional(Type.Unknown()),
    },
    { additionalProperties: false },
  ),
});

export const CheckSchema = Type.Object({
  model: Type.String({ description: 'The model (or, for a validation, the trigger id).' }),
  operation: Type.String({ description: '`create`, `read`, `update`, `delete` or `validation`.' }),
  ruleIndex: Type.Integer(),
  expression: Type.String(),
  result: Type.Union([Type.Boolean(), Type.Literal('per-row')]),
  values: Type.Record(Type.String(), Type.Unknown()),
});

const ExplanationSchema = Type.Object({
  status: Type.Integer({ description: 'What the real request answers.' }),
  decision: Type.Union([Type.Literal('allow'), Type.Literal('deny'), Type.Literal('filtered')]),
  checks: Type.Array(CheckSchema),
  rows: Type.Object({ visible: Type.Integer(), hidden: Type.Integer() }),
  fieldsHidden: Type.Array(Type.String()),
});

const Cell = Type.Union([Type.Literal('always'), Type.Literal('never'), Type.Object({ when: Type.String({ description: 'The record-dependent rest of the rules, as CEL.' }) })]);
const CallerCells = Type.Object({ anonymous: Cell, signedIn: Cell, owner: Type.Optional(Cell), admin: Cell });

export const AdviceSchema = Type.Object({
  code: Type.Union(['no-end-user-access', 'public-write', 'unreachable-model', 'plaintext-secret-field', 'rule-needs-index'].map((c) => Type.Literal(c))),
  model: Type.Optional(Type.String()),
  message: Type.String(),
});

/** Per model, the operations an end user may ever do (anonymous, signed in — on their own records included). */
export const AccessSummarySchema = Type.Array(
  Type.Object({
    model: Type.String(),
    anonymous: Type.Array(Type.String()),
    signedIn: Type.Array(Type.String()),
  }),
);

/** The publish answer: the Application, with who may do what and the advice of the version published. */
export const PublishAnswerSchema = Type.Intersect([ApplicationSchema, Type.Object({ access: AccessSummarySchema, advice: Type.Array(AdviceSchema) })]);

const AccessSchema = Type.Object({
  applicationId: Type.String(),
  serverVersion: Type.String(),
  models: Type.Array(
    Type.Object({
      model: Type.String(),
      resource: Type.String(),
      ownerField: Type.Union([Type.String(), Type.Null()]),
      operations: Type.Object({ create: CallerCells, read: CallerCells, update: CallerCells, delete: CallerCells }),
    }),
  ),
  advice: Type.Array(AdviceSchema),
});

// Named once in the document (repeated members would otherwise be written out at each use).
nameComponents({
  AccessCell: Cell,
  AccessCells: CallerCells,
  AccessMatrix: AccessSchema,
  AccessSummary: AccessSummarySchema,
  Advice: AdviceSchema,
  RuleCheck: CheckSchema,
  Explanation: ExplanationSchema,
  PublishAnswer: PublishAnswerSchema,
});

export function advisorRoutes(advisor: AdvisorService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const common = { tags: ['applications'], security: MANAGEMENT_SECURITY };
    app.post(
      '/applications/:applicationId/explain',
      {
        // Nothing is ever written (the request runs in a transaction rolled back): a viewer may explain.
        config: { requiredRole: 'viewer', changesNothing: true },
        schema: {
          ...common,
          operationId: 'explainRequest',
          summary: 'Explain a request as an end user or anonymous (rolled back): what each rule decided',
          params: ApplicationParams,
          body: ExplainBody,
          response: { 200: ExplanationSchema, ...problemResponses(400, 404) },
        },
      },
      async (request) => advisor.explain(request.principal.customerId, request.params.applicationId, request.body as ExplainInput),
    );
    app.get(
      '/applications/:applicationId/access',
      {
        schema: {
          ...common,
          operationId: 'getAccessMatrix',
          summary: 'The access matrix (by partial evaluation) and the advice',
          params: ApplicationParams,
          querystring: Type.Object({ version: Type.Optional(Version) }),
          response: { 200: AccessSchema, ...problemResponses(404) },
        },
      },
      async (request) => advisor.access(request.principal.customerId, request.params.applicationId, request.query.version),
    );
  };
}
