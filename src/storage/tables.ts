import type { ColumnType, Generated } from 'kysely';
import type { Actor, Role } from '../access/roles.ts';

/** Control-plane tables (schema `appbuilder`), as Kysely sees them. */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string, string>;
/** Who created a row (DESIGN §10); null for rows older than builders or made by no management caller. */
type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;

export interface CustomersTable {
  id: string;
  name: string;
  created_at: Timestamp;
}

export interface ApiClientsTable {
  id: string;
  customer_id: string;
  name: string;
  api_key: string;
  secret_hash: string;
  is_platform_admin: boolean;
  created_at: Timestamp;
  revoked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface ProjectsTable {
  id: string;
  customer_id: string;
  name: string;
  components: Json<string[]>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ApplicationsTable {
  id: string;
  customer_id: string;
  project_id: string;
  name: string | null;
  /** The manifest of the current definition (migration 018; services/applications/version-store.ts reads the definition). */
  manifest: Json<Record<string, unknown>>;
  server_version: string;
  is_active: Generated<boolean>;
  last_published_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  last_unpublished_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ApplicationVersionsTable {
  id: string;
  application_id: string;
  server_version: string;
  scode: Json<Record<string, unknown>>;
  created_at: Timestamp;
  updated_at: Timestamp;
  created_by: NullableJson<Actor>;
  /** The stored form (migration 017): the view rebuilds `scode` from it and the blobs. */
  manifest: Json<Record<string, unknown>>;
}

/** Where version rows are written (migration 017); read them through `application_versions`. */
export interface ApplicationVersionRowsTable {
  id: string;
  application_id: string;
  server_version: string;
  manifest: Json<Record<string, unknown>>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  created_by: NullableJson<Actor>;
}

/** Content-addressed parts of version definitions, shared by an application's versions (migration 017). */
export interface VersionBlobsTable {
  application_id: string;
  hash: string;
  body: Json<unknown>;
}

export interface JobsTable {
  id: string;
  customer_id: string;
  project_id: string;
  application_id: string | null;
  job_type: string;
  status: string;
  implementation_job_id: string | null;
  metadata: Json<Record<string, unknown>>;
  error_message: string | null;
  error_stack: string | null;
  created_at: Timestamp;
  started_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  completed_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_by: NullableJson<Actor>;
}

export interface SettingsTable {
  key: string;
  value: string;
}

type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface DeploymentsTable {
  application_id: string;
  server_version: string;
  state: 'active' | 'inactive';
  published_at: NullableTimestamp;
  unpublished_at: NullableTimestamp;
}

export interface AppSchemasTable {
  application_id: string;
  server_version: string;
  scode: Json<Record<string, unknown>>;
  updated_at: Timestamp;
}

export interface AppMigrationsTable {
  id: string;
  application_id: string;
  server_version: string;
  statements: Json<string[]>;
  summary: Json<string[]>;
  applied_at: Timestamp;
}

export interface AppKeysTable {
  application_id: string;
  sealed_jwt_key: string;
}

export interface EventsTable {
  id: string;
  application_id: string;
  name: string;
  payload: Json<Record<string, unknown>>;
  previous: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  dispatched_at: NullableTimestamp;
}

export interface BuildersTable {
  id: string;
  customer_id: string;
  name: string;
  email: string;
  role: Role;
  project_ids: NullableJson<string[]>;
  is_active: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
  last_active_at: NullableTimestamp;
}

export interface BuilderTokensTable {
  id: string;
  builder_id: string;
  name: string;
  token_hash: string;
  created_at: Timestamp;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

export interface AuditEventsTable {
  id: string;
  customer_id: string;
  at: Timestamp;
  actor_type: Actor['type'];
  actor_id: string;
  operation_id: string | null;
  method: string;
  path: string;
  status: number;
  request_id: string;
  /** The generated application a write on its own routes changed; null for management routes. */
  application_id: Generated<string | null>;
}

export interface ControlPlane {
  'appbuilder.builders': BuildersTable;
  'appbuilder.builder_tokens': BuilderTokensTable;
  'appbuilder.audit_events': AuditEventsTable;
  'appbuilder.deployments': DeploymentsTable;
  'appbuilder.app_schemas': AppSchemasTable;
  'appbuilder.app_migrations': AppMigrationsTable;
  'appbuilder.app_keys': AppKeysTable;
  'appbuilder.events': EventsTable;
  'appbuilder.customers': CustomersTable;
  'appbuilder.api_clients': ApiClientsTable;
  'appbuilder.projects': ProjectsTable;
  'appbuilder.applications': ApplicationsTable;
  'appbuilder.application_versions': ApplicationVersionsTable;
  'appbuilder.application_version_rows': ApplicationVersionRowsTable;
  'appbuilder.version_blobs': VersionBlobsTable;
  'appbuilder.jobs': JobsTable;
  'appbuilder.settings': SettingsTable;
}
