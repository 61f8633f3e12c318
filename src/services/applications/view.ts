import type { Selectable } from 'kysely';
import type { ApplicationsTable } from '../../storage/tables.ts';
import { toIso } from '../../storage/sql.ts';
import type { JobRecord } from '../../jobs/store.ts';
import type { AppDefinition } from '../../definition/schema.ts';

/** One served version of an application (DESIGN §8, left open by the spec). */
export interface DeploymentStatus {
  serverVersion: string;
  state: string;
  publishedAt?: string;
  unpublishedAt?: string;
  /** Monitoring (DESIGN §19): the last request, the share of 5xx over 5 minutes, and `ok` | `degraded`. */
  lastRequestAt?: string | null;
  errorRate?: number;
  recentRequests?: number;
  health?: 'ok' | 'degraded';
}

export interface MigrationStatus {
  serverVersion: string;
  appliedAt: string;
  statements: string[];
}

export interface ApplicationStatus {
  jobs: JobRecord[];
  deployments: DeploymentStatus[];
  migrations: MigrationStatus[];
  /** The application's own origin (added to every management answer, api/served-urls.ts). */
  appUrl?: string;
}

/** The Application resource exactly as the spec shows it. */
export interface Application {
  id: string;
  name?: string;
  scode: AppDefinition;
  projectId: string;
  status: ApplicationStatus;
  isActive: boolean;
  serverVersion?: string;
  lastPublishedAt?: string;
  lastUnpublishedAt?: string;
}

/** An application row with its current definition (read through the version store, services/applications/service.ts). */
export type ApplicationRow = Omit<Selectable<ApplicationsTable>, 'manifest'> & { scode: AppDefinition };

export function toApplication(row: ApplicationRow, status: ApplicationStatus): Application {
  return {
    id: row.id,
    ...(row.name !== null ? { name: row.name } : {}),
    scode: row.scode,
    projectId: row.project_id,
    status,
    isActive: row.is_active,
    serverVersion: row.server_version,
    ...(row.last_published_at ? { lastPublishedAt: toIso(row.last_published_at) } : {}),
    ...(row.last_unpublished_at ? { lastUnpublishedAt: toIso(row.last_unpublished_at) } : {}),
  };
}
