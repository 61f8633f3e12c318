import {
  AccessControlSchema,
  AccessRuleSchema,
  ActionEffectSchema,
  ActionIdSchema,
  ActionSchema,
  AppDefinitionSchema,
  AppDraftSchema,
  AppOverviewSchema,
  DomainModelSchema,
  EffectOnErrorSchema,
  EventTriggerSchema,
  FieldIdSchema,
  FieldSchema,
  HttpTriggerSchema,
  ModelIdSchema,
  ModelSchema,
  PersonaSchema,
  RequirementIdSchema,
  RequirementSchema,
  TriggerIdSchema,
  TriggerSchema,
} from '../definition/schema.ts';
import { ApplicationSchema, ApplicationStatusSchema, JobRecordSchema, JobSummarySchema } from './routes/application-schemas.ts';
import { IntegrationPromptsSchema } from './routes/frontend.ts';
import { VersionSchema } from './routes/versions.ts';
import { nameComponents } from './openapi.ts';

/**
 * The names a user imports from the management document and the SDK. Schemas of the definition
 * are named here rather than with an `$id`: bodies repeat them (a model's and a field's access
 * control), and Ajv refuses an `$id` met twice in one schema. A route group's own response
 * schemas may simply carry an `$id` (openapi.ts names them by it).
 */
nameComponents({
  Application: ApplicationSchema,
  ApplicationStatus: ApplicationStatusSchema,
  Job: JobRecordSchema,
  JobSummary: JobSummarySchema,
  VersionRecord: VersionSchema,
  IntegrationPrompts: IntegrationPromptsSchema,
  ApplicationDefinition: AppDefinitionSchema,
  Requirement: RequirementSchema,
  Persona: PersonaSchema,
  AppOverview: AppOverviewSchema,
  AppDraft: AppDraftSchema,
  DomainModel: DomainModelSchema,
  Model: ModelSchema,
  Field: FieldSchema,
  AccessControl: AccessControlSchema,
  AccessRule: AccessRuleSchema,
  Action: ActionSchema,
  Effect: ActionEffectSchema,
  EffectOnError: EffectOnErrorSchema,
  Trigger: TriggerSchema,
  EventTrigger: EventTriggerSchema,
  HttpTrigger: HttpTriggerSchema,
  ModelId: ModelIdSchema,
  FieldId: FieldIdSchema,
  ActionId: ActionIdSchema,
  TriggerId: TriggerIdSchema,
  RequirementId: RequirementIdSchema,
});
