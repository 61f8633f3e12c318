import { Type } from '@sinclair/typebox';
import { AppDefinitionSchema } from '../../definition/schema.ts';
import { DateTime, Uuid } from '../schemas.ts';

/** Who made a change (DESIGN §10); null when no management caller did (or before builders existed). */
export const ActorSchema = Type.Union([
  Type.Object({ type: Type.Union([Type.Literal('apiClient'), Type.Literal('builder')]), id: Uuid }),
  Type.Null(),
]);

export const JobRecordSchema = Type.Object(
  {
    id: Uuid,
    implementationJobId: Type.Optional(Type.String()),
    jobType: Type.String(),
    status: Type.String(),
    customerId: Uuid,
    projectId: Uuid,
    metadata: Type.Record(Type.String(), Type.Unknown()),
    errorMessage: Type.Optional(Type.String()),
    errorStack: Type.Optional(Type.String()),
    startedAt: Type.Optional(Type.String()),
    completedAt: Type.Optional(Type.String()),
    createdBy: Type.Optional(ActorSchema),
  },
  { $id: 'JobRecord' },
);

export const JobSummarySchema = Type.Object({
  id: Uuid,
  jobType: Type.String(),
  status: Type.String(),
  projectId: Uuid,
  startedAt: Type.Optional(Type.String()),
  completedAt: Type.Optional(Type.String()),
});

export const ApplicationStatusSchema = Type.Object({
  appUrl: Type.Optional(
    Type.String({
      format: 'uri',
      description:
        "The application's own origin, `http://{applicationId}.{APPBUILDER_APPS_DOMAIN}:{port}`: its API at `{appUrl}/api/v{serverVersion}/…`, its reference page and its HTML answers are served there (browsers resolve `*.localhost` themselves).",
    }),
  ),
  frontendUrl: Type.Optional(
    Type.String({ format: 'uri', description: 'When a version is served: its generated frontend on the application\'s own origin, `{appUrl}/` (the most recently published served version).' }),
  ),
  jobs: Type.Array(JobRecordSchema),
  deployments: Type.Array(
    Type.Object({
      serverVersion: Type.String(),
      state: Type.String({ description: '`active` (served), `inactive` (unpublished), or `pending` in a publish answer until its deployment job succeeds.' }),
      publishedAt: Type.Optional(DateTime),
      unpublishedAt: Type.Optional(DateTime),
      lastRequestAt: Type.Optional(Type.Union([DateTime, Type.Null()], { description: 'The last request this version answered (within the request log retention).' })),
      errorRate: Type.Optional(Type.Number({ description: 'Share of 5xx answers over the last 5 minutes (0 without requests).' })),
      recentRequests: Type.Optional(Type.Integer({ description: 'Requests over the last 5 minutes.' })),
      health: Type.Optional(Type.Union([Type.Literal('ok'), Type.Literal('degraded')], { description: '`degraded` when errorRate passes APPBUILDER_ALERT_ERROR_RATE.' })),
      apiUrl: Type.Optional(
        Type.String({
          format: 'uri',
          description:
            'Where the version answers on the shared path form, JSON and plain text only: `{origin}/apps/{applicationId}/api/v{serverVersion}` (origin from APPBUILDER_PUBLIC_URL, else the request). The same API is at `{appUrl}/api/v{serverVersion}`.',
        }),
      ),
      docsUrl: Type.Optional(Type.String({ format: 'uri', description: "The version's API reference page, on the application's own origin: `{appUrl}/api/v{serverVersion}/docs`." })),
      openapiUrl: Type.Optional(Type.String({ format: 'uri', description: "The version's OpenAPI 3.1 document: `{apiUrl}/openapi.json`." })),
      frontendUrl: Type.Optional(Type.String({ format: 'uri', description: "The version's generated frontend, served on the application's own origin: `{appUrl}/v{serverVersion}/` (same origin as its API)." })),
      frontendBundleUrl: Type.Optional(Type.String({ format: 'uri', description: 'On the most recently published served version: the download of its frontend bundle (management credentials).' })),
    }),
  ),
  migrations: Type.Array(
    Type.Object({ serverVersion: Type.String(), appliedAt: DateTime, statements: Type.Array(Type.String()) }),
  ),
});

export const ApplicationSchema = Type.Object(
  {
    id: Uuid,
    name: Type.Optional(Type.String()),
    scode: AppDefinitionSchema,
    projectId: Uuid,
    status: ApplicationStatusSchema,
    isActive: Type.Boolean(),
    serverVersion: Type.Optional(Type.String()),
    lastPublishedAt: Type.Optional(DateTime),
    lastUnpublishedAt: Type.Optional(DateTime),
  },
  { $id: 'Application' },
);

export const ApplicationParams = Type.Object({ applicationId: Uuid });
