import { Type } from '@sinclair/typebox';
import { AppDefinitionSchema } from '../../definition/schema.ts';
import { DateTime, Uuid } from '../schemas.ts';

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
  jobs: Type.Array(JobRecordSchema),
  deployments: Type.Array(
    Type.Object({
      serverVersion: Type.String(),
      state: Type.String(),
      publishedAt: Type.Optional(DateTime),
      unpublishedAt: Type.Optional(DateTime),
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
