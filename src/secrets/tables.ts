// The tables of migration 007, added to the control-plane handle where they are used
// (Kysely's withTables), so the shared tables.ts stays one owner's file.
import type { ColumnType, Kysely } from 'kysely';
import type { Actor } from '../access/roles.ts';
import type { Executor } from '../storage/db.ts';
import type { ControlPlane } from '../storage/tables.ts';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface DataKeysTable {
  owner_id: string;
  customer_id: string;
  project_id: string | null;
  application_id: string | null;
  wrapped_key: string;
  created_at: Timestamp;
  rotated_at: NullableTimestamp;
}

export type ValueKind = 'variable' | 'secret';

export interface ConfigValuesTable {
  id: string;
  customer_id: string;
  owner_id: string;
  project_id: string | null;
  application_id: string | null;
  kind: ValueKind;
  name: string;
  value: string | null;
  sealed_value: string | null;
  version: number;
  created_at: Timestamp;
  updated_at: Timestamp;
  updated_by: ColumnType<Actor, string, string>;
}

// A type, not an interface: withTables needs an index signature.
export type SecretTables = {
  'appbuilder.data_keys': DataKeysTable;
  'appbuilder.config_values': ConfigValuesTable;
};

export type SecretsExecutor = Kysely<ControlPlane & SecretTables>;

/** The same handle (or transaction), typed with this module's tables. */
export function withSecretTables(executor: Executor): SecretsExecutor {
  return executor.withTables<SecretTables>();
}
