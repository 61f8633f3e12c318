import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ActionIdSchema } from '../../definition/schema.ts';
import type { RunService } from '../../services/runs.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { DateTime, ListEnvelope, PageQuery, Uuid, problemResponses } from '../schemas.ts';
import { ActorSchema } from './application-schemas.ts';

const RunStatusSchema = Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]);

const RunErrorSchema = Type.Object({
  message: Type.String(),
  code: Type.String({ description: 'e.g. not_found, forbidden, validation_failed, step_limit, time_limit, or flow.fail’s code.' }),
  effectId: Type.Union([Type.String(), Type.Null()], { description: 'The effect that failed; null when the failure is not an effect’s.' }),
  status: Type.Integer({ description: 'The HTTP status the failure maps to.' }),
});

const StepSchema = Type.Object({
  actionEffectId: Type.String(),
  effect: Type.String(),
  startedAt: DateTime,
  durationMs: Type.Number(),
  output: Type.Optional(Type.Unknown()),
  error: Type.Optional(RunErrorSchema),
});

export const RunSchema = Type.Object(
  {
    id: Uuid,
    applicationId: Uuid,
    serverVersion: Type.String(),
    triggerId: Type.Union([Type.String(), Type.Null()], { description: 'Null for a test run.' }),
    actionId: Type.String(),
    status: RunStatusSchema,
    input: Type.Object({
      initialState: Type.Record(Type.String(), Type.Unknown()),
      request: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'HTTP triggers: method, path, params, query, headers (credentials left out), body.' })),
      event: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Event triggers: name, payload, previous.' })),
      authId: Type.Union([Type.String(), Type.Null()]),
      caller: Type.Union([Type.Literal('anonymous'), Type.Literal('user'), Type.Literal('admin'), Type.Literal('system')]),
    }),
    steps: Type.Array(StepSchema),
    result: Type.Unknown({ description: 'bindReturnValue, or flow.return’s body; null when failed.' }),
    response: Type.Optional(Type.Object({ status: Type.Integer(), headers: Type.Record(Type.String(), Type.String()), body: Type.Unknown() })),
    error: Type.Optional(RunErrorSchema),
    startedAt: DateTime,
    completedAt: DateTime,
    durationMs: Type.Number(),
    createdBy: Type.Optional(ActorSchema),
  },
  { description: 'One run of an action.' },
);

const AppParams = Type.Object({ applicationId: Uuid });
const RunParams = Type.Object({ applicationId: Uuid, runId: Uuid });
const ActionParams = Type.Object({ applicationId: Uuid, actionId: ActionIdSchema });

const RunQuery = Type.Composite([
  PageQuery,
  Type.Object({
    triggerId: Type.Optional(Type.String({ minLength: 1 })),
    actionId: Type.Optional(Type.String({ minLength: 1 })),
    status: Type.Optional(RunStatusSchema),
  }),
]);

const TestBody = Type.Object({
  initialState: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { default: {}, description: 'The state the action starts with (`state` in its expressions).' })),
  auth: Type.Optional(
    Type.Union([Type.String({ format: 'uuid' }), Type.Object({ id: Type.String() }, { additionalProperties: true })], {
      description:
        'Run as this end user, under the access rules: the id of a record of the user model, or a user record (with `id`) used as is. Without it the action runs as the application’s administrator (rules bypassed).',
    }),
  ),
  event: Type.Optional(
    Type.Object({ name: Type.String({ minLength: 1 }), payload: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }, { description: '`event` in the action’s expressions, for actions of event triggers.' }),
  ),
});

/** Runs of actions: the stored runs of an application, and test runs of one action. */
export function runRoutes(runs: RunService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const common = { tags: ['runs'], security: MANAGEMENT_SECURITY };

    app.get(
      '/applications/:applicationId/runs',
      {
        schema: {
          ...common,
          operationId: 'listRuns',
          summary: 'List the runs of the application’s actions, newest first',
          params: AppParams,
          querystring: RunQuery,
          response: { 200: ListEnvelope(RunSchema), ...problemResponses(404) },
        },
      },
      async (request) => {
        const { limit, offset, triggerId, actionId, status } = request.query;
        const page = await runs.list(request.principal.customerId, request.params.applicationId, { limit, offset, triggerId, actionId, status });
        return { items: page.items, metadata: { total: page.total } };
      },
    );

    app.get(
      '/applications/:applicationId/runs/:runId',
      {
        schema: {
          ...common,
          operationId: 'getRun',
          summary: 'One run with its input, steps and outcome',
          params: RunParams,
          response: { 200: RunSchema, ...problemResponses(404) },
        },
      },
      async (request) => runs.get(request.principal.customerId, request.params.applicationId, request.params.runId),
    );

    app.post(
      '/applications/:applicationId/actions/:actionId/test',
      {
        schema: {
          ...common,
          operationId: 'testAction',
          summary: 'Run an action of the saved definition against the application’s data, in a transaction that is always rolled back; the run is returned, not stored',
          params: ActionParams,
          body: TestBody,
          response: { 200: RunSchema, ...problemResponses(404, 409, 422) },
        },
      },
      async (request) => runs.test(request.principal.customerId, request.params.applicationId, request.params.actionId, request.body),
    );
  };
}
