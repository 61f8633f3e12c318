import type { Kysely } from 'kysely';
import * as controlPlane from './001-control-plane.ts';
import * as deployments from './002-deployments.ts';
import * as frontendBundles from './003-frontend-bundles.ts';
import * as runs from './004-runs.ts';
import * as runsJson from './005-runs-json.ts';
import * as access from './006-access.ts';
import * as secrets from './007-secrets.ts';
import * as files from './008-files.ts';
import * as assistant from './009-assistant.ts';
import * as monitoring from './010-monitoring.ts';
import * as specifications from './011-specifications.ts';
import * as appFiles from './012-app-files.ts';
import * as realtime from './013-realtime.ts';
import * as accounts from './014-accounts.ts';
import * as accountFactors from './015-account-factors.ts';
import * as figma from './016-figma.ts';
import * as versionBlobs from './017-version-blobs.ts';
import * as applicationManifests from './018-application-manifests.ts';
import * as auditApplications from './019-audit-applications.ts';
import * as fileProjects from './020-file-projects.ts';
import * as dataImports from './021-data-imports.ts';
import * as backups from './022-backups.ts';
import * as idempotencyKeys from './023-idempotency-keys.ts';

export interface Migration {
  version: number;
  name: string;
  up(db: Kysely<unknown>): Promise<void>;
}

/** Control-plane migrations, in order. Append only: a landed migration never changes. */
export const MIGRATIONS: Migration[] = [
  { version: 1, name: 'control-plane', up: controlPlane.up },
  { version: 2, name: 'deployments', up: deployments.up },
  { version: 3, name: 'frontend-bundles', up: frontendBundles.up },
  { version: 4, name: 'runs', up: runs.up },
  { version: 5, name: 'runs-json', up: runsJson.up },
  { version: 6, name: 'access', up: access.up },
  { version: 7, name: 'secrets', up: secrets.up },
  { version: 8, name: 'files', up: files.up },
  { version: 9, name: 'assistant', up: assistant.up },
  { version: 10, name: 'monitoring', up: monitoring.up },
  { version: 11, name: 'specifications', up: specifications.up },
  { version: 12, name: 'app-files', up: appFiles.up },
  { version: 13, name: 'realtime', up: realtime.up },
  { version: 14, name: 'accounts', up: accounts.up },
  { version: 15, name: 'account-factors', up: accountFactors.up },
  { version: 16, name: 'figma', up: figma.up },
  { version: 17, name: 'version-blobs', up: versionBlobs.up },
  { version: 18, name: 'application-manifests', up: applicationManifests.up },
  { version: 19, name: 'audit-applications', up: auditApplications.up },
  { version: 20, name: 'file-projects', up: fileProjects.up },
  { version: 21, name: 'data-imports', up: dataImports.up },
  { version: 22, name: 'backups', up: backups.up },
  { version: 23, name: 'idempotency-keys', up: idempotencyKeys.up },
];
