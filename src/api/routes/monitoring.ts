import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { MonitoringService } from '../../monitoring/service.ts';
import { WEBHOOK_EVENTS } from '../../monitoring/webhooks.ts';
import { MAX_POINTS } from '../../monitoring/queries.ts';
import { notFound } from '../../errors.ts';
import { MANAGEMENT_SECURITY } from '../auth.ts';
import { DateTime, Uuid, problemResponses } from '../schemas.ts';

const AppParams = Type.Object({ applicationId: Uuid });
const Ms = Type.Union([Type.Number(), Type.Null()], { description: 'Milliseconds; null without requests.' });

const LogQuery = Type.Object({
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Only requests at or after this time.' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Only requests before this time.' })),
  status: Type.Optional(Type.String({ pattern: '^([1-5][0-9][0-9]|[1-5]xx)$', description: 'A status (`404`) or a class (`5xx`).' })),
  route: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'A route template as logged, e.g. `/toDos/:id`.' })),
  method: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3,7}$' })),
  userId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The end user (id of the user record).' })),
  serverVersion: Type.Optional(Type.String({ pattern: '^\\d+\\.\\d+\\.\\d+$' })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: '`metadata.nextCursor` of the previous page.' })),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
});

const LogEntrySchema = Type.Object(
  {
    id: Uuid,
    at: DateTime,
    serverVersion: Type.String(),
    method: Type.String(),
    route: Type.String({ description: 'The route template the request matched (`/toDos/:id`), or `(unmatched)`; never the URL or its query string.' }),
    status: Type.Integer(),
    durationMs: Type.Number(),
    userId: Type.Union([Type.String(), Type.Null()], { description: 'The end user who called, when one was signed in.' }),
    bytes: Type.Union([Type.Integer(), Type.Null()], { description: 'Bytes of the response body.' }),
    errorType: Type.Union([Type.String(), Type.Null()], { description: 'For errors: the problem type (`not-found`, `internal-server-error`) or error code.' }),
  },
  { description: 'One request to a generated app. No bodies, no query strings, no headers.' },
);

const LogPage = Type.Object({
  items: Type.Array(LogEntrySchema),
  metadata: Type.Object({ nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next (older) page; null on the last.' }) }),
});

const MetricsQuery = Type.Object({
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Default: an hour before `to`. At most 31 days before `to` (else 400).' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Default: now.' })),
  step: Type.Optional(Type.Integer({ minimum: 10, maximum: 86_400, description: `Seconds per point (default 60); at most ${MAX_POINTS} points.` })),
});

const RequestPoint = {
  requests: Type.Integer(),
  errors4xx: Type.Integer(),
  errors5xx: Type.Integer(),
  p50Ms: Ms,
  p95Ms: Ms,
  p99Ms: Ms,
};
const RunPoint = { runs: Type.Integer(), failures: Type.Integer(), p50Ms: Ms };

const MetricsSchema = Type.Object({
  from: DateTime,
  to: DateTime,
  step: Type.Integer({ description: 'Seconds per point.' }),
  requests: Type.Array(
    Type.Object({
      serverVersion: Type.String(),
      method: Type.String(),
      route: Type.String(),
      total: Type.Object(RequestPoint),
      points: Type.Array(Type.Object({ at: DateTime, ...RequestPoint }), { description: 'The steps with requests (empty steps left out), oldest first.' }),
    }),
    { description: 'Generated-app requests by version, method and route template.' },
  ),
  runs: Type.Array(
    Type.Object({ serverVersion: Type.String(), actionId: Type.String(), total: Type.Object(RunPoint), points: Type.Array(Type.Object({ at: DateTime, ...RunPoint })) }),
    { description: 'Action runs (HTTP, event and schedule triggers) and their failures.' },
  ),
  jobs: Type.Array(
    Type.Object({ jobType: Type.String(), jobs: Type.Integer(), failed: Type.Integer(), p50DurationMs: Ms, maxDurationMs: Ms }),
    { description: 'Jobs of the application finished in the range, by type.' },
  ),
});

const EventSchema = Type.Union(WEBHOOK_EVENTS.map((e) => Type.Literal(e)));

const WebhookBody = Type.Object({
  url: Type.String({ format: 'uri', maxLength: 2000, description: 'Where events are POSTed (http or https; reached through the outbound guard, APPBUILDER_HTTP_ALLOW).' }),
  events: Type.Optional(Type.Array(EventSchema, { minItems: 1, uniqueItems: true, description: 'Default: every event.' })),
  secret: Type.Optional(
    Type.String({ minLength: 16, maxLength: 256, description: 'The HMAC key; when left out one is generated and returned once in this answer.' }),
  ),
});

const DeliverySchema = Type.Object({
  id: Uuid,
  event: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  lastStatus: Type.Union([Type.Integer(), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  createdAt: DateTime,
  deliveredAt: Type.Union([DateTime, Type.Null()]),
  nextAttemptAt: Type.Union([DateTime, Type.Null()]),
});

const WebhookSchema = Type.Object(
  {
    url: Type.String(),
    events: Type.Array(EventSchema),
    createdAt: DateTime,
    updatedAt: DateTime,
    secret: Type.Optional(Type.String({ description: 'Only in the answer that generated it.' })),
    deliveries: Type.Optional(Type.Array(DeliverySchema, { description: 'The 20 most recent deliveries, newest first.' })),
  },
  {
    description:
      'Events are POSTed as JSON `{id, event, applicationId, createdAt, data}` with headers `x-appbuilder-event`, `x-appbuilder-delivery` and ' +
      '`x-appbuilder-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the secret>`. A non-2xx answer or no answer is retried ' +
      'after APPBUILDER_WEBHOOK_RETRY seconds, doubled each time, 8 attempts in all.',
  },
);

/** Monitoring of a running application (DESIGN §19): its request log, metrics and webhook. */
export function monitoringRoutes(monitoring: MonitoringService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const common = { tags: ['monitoring'], security: MANAGEMENT_SECURITY };

    app.get(
      '/applications/:applicationId/logs',
      {
        schema: {
          ...common,
          operationId: 'listRequestLogs',
          summary: 'The request log of the application’s served versions, newest first, cursor-paged',
          params: AppParams,
          querystring: LogQuery,
          response: { 200: LogPage, ...problemResponses(404) },
        },
      },
      async (request) => {
        const page = await monitoring.logs(request.principal.customerId, request.params.applicationId, request.query);
        return { items: page.items, metadata: { nextCursor: page.nextCursor } };
      },
    );

    app.get(
      '/applications/:applicationId/metrics',
      {
        schema: {
          ...common,
          operationId: 'getApplicationMetrics',
          summary: 'Requests, errors and latency percentiles by version and route, action runs and job durations over a range',
          params: AppParams,
          querystring: MetricsQuery,
          response: { 200: MetricsSchema, ...problemResponses(404) },
        },
      },
      async (request) => monitoring.metrics(request.principal.customerId, request.params.applicationId, request.query),
    );

    app.get(
      '/applications/:applicationId/webhook',
      {
        schema: {
          ...common,
          operationId: 'getApplicationWebhook',
          summary: 'The application’s webhook and its recent deliveries (404 when none is set)',
          params: AppParams,
          response: { 200: WebhookSchema, ...problemResponses(404) },
        },
      },
      async (request) => {
        const webhook = await monitoring.getWebhook(request.principal.customerId, request.params.applicationId);
        if (!webhook) throw notFound('The application has no webhook.');
        return webhook;
      },
    );

    app.put(
      '/applications/:applicationId/webhook',
      {
        config: { requiredRole: 'admin' },
        schema: {
          ...common,
          operationId: 'putApplicationWebhook',
          summary: 'Set the webhook receiving deployment.degraded, deployment.recovered and job.failed (201 created, 200 replaced)',
          params: AppParams,
          body: WebhookBody,
          response: { 200: WebhookSchema, 201: WebhookSchema, ...problemResponses(403, 404) },
        },
      },
      async (request, reply) => {
        const { webhook, created } = await monitoring.putWebhook(request.principal.customerId, request.params.applicationId, request.body);
        reply.status(created ? 201 : 200);
        return webhook;
      },
    );

    app.delete(
      '/applications/:applicationId/webhook',
      {
        config: { requiredRole: 'admin' },
        schema: {
          ...common,
          operationId: 'deleteApplicationWebhook',
          summary: 'Remove the webhook and its pending deliveries',
          params: AppParams,
          response: { 204: Type.Null(), ...problemResponses(403, 404) },
        },
      },
      async (request, reply) => {
        const deleted = await monitoring.deleteWebhook(request.principal.customerId, request.params.applicationId);
        if (!deleted) throw notFound('The application has no webhook.');
        return reply.status(204).send(null);
      },
    );
  };
}
