import type { Selectable } from 'kysely';
import type { Db } from '../../storage/db.ts';
import type { ApplicationVersionsTable } from '../../storage/tables.ts';
import { toIso } from '../../storage/sql.ts';
import { notFound } from '../../errors.ts';
import type { AppDefinition } from '../../definition/schema.ts';
import { diffDefinitions, type Change } from '../../definition/versioning/index.ts';
import type { ApplicationService, ChangeOptions } from './service.ts';
import type { Application } from './view.ts';
import type { Page } from '../projects.ts';
import type { Actor } from '../../access/roles.ts';

/** The version record as the spec shows it. */
export interface ApplicationVersion {
  id: string;
  applicationId: string;
  serverVersion: string;
  scode: AppDefinition;
  createdAt: string;
  updatedAt: string;
  /** Who made the change (DESIGN §10); null for versions made before builders existed. */
  createdBy: Actor | null;
}

function toVersion(row: Selectable<ApplicationVersionsTable>): ApplicationVersion {
  return {
    id: row.id,
    applicationId: row.application_id,
    serverVersion: row.server_version,
    scode: row.scode as unknown as AppDefinition,
    createdAt: toIso(row.created_at)!,
    updatedAt: toIso(row.updated_at)!,
    createdBy: row.created_by,
  };
}

/** The immutable history of an application's definitions (DESIGN §8). */
export class VersionService {
  constructor(
    private readonly db: Db,
    private readonly applications: ApplicationService,
  ) {}

  /** Newest first. */
  async list(customerId: string, applicationId: string, limit: number, offset: number): Promise<Page<ApplicationVersion>> {
    await this.applications.findRow(this.db.kysely, customerId, applicationId);
    const base = this.db.kysely.selectFrom('appbuilder.application_versions').where('application_id', '=', applicationId);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(toVersion), total: Number(count.total) };
  }

  async get(customerId: string, applicationId: string, serverVersion: string): Promise<ApplicationVersion> {
    await this.applications.findRow(this.db.kysely, customerId, applicationId);
    const row = await this.db.kysely
      .selectFrom('appbuilder.application_versions')
      .selectAll()
      .where('application_id', '=', applicationId)
      .where('server_version', '=', serverVersion)
      .executeTakeFirst();
    if (!row) throw notFound(`Version ${serverVersion} of application ${applicationId} was not found.`, '/serverVersion');
    return toVersion(row);
  }

  async diff(customerId: string, applicationId: string, from: string, to: string): Promise<{ from: string; to: string; changes: Change[] }> {
    const [a, b] = await Promise.all([this.get(customerId, applicationId, from), this.get(customerId, applicationId, to)]);
    return { from, to, changes: diffDefinitions(a.scode, b.scode) };
  }

  /** A new version whose definition equals the old one; history is never rewritten. */
  async restore(customerId: string, applicationId: string, serverVersion: string, options: ChangeOptions = {}): Promise<Application> {
    const old = await this.get(customerId, applicationId, serverVersion);
    return this.applications.change(customerId, applicationId, () => structuredClone(old.scode), options);
  }
}
