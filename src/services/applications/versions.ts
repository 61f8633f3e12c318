import type { Selectable } from 'kysely';
import type { Db } from '../../storage/db.ts';
import type { ApplicationVersionsTable } from '../../storage/tables.ts';
import { toIso } from '../../storage/sql.ts';
import { badRequest, notFound } from '../../errors.ts';
import type { AppDefinition } from '../../definition/schema.ts';
import { diffDefinitions, type Change } from '../../definition/versioning/index.ts';
import type { ApplicationService, ChangeOptions } from './service.ts';
import type { Application } from './view.ts';
import type { Page } from '../projects.ts';
import type { Actor } from '../../access/roles.ts';
import type { Manifest } from '../../definition/versioning/stored-form.ts';
import { loadDefinitions } from './version-store.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

/** The members a version record has, in the spec's order. */
export const VERSION_MEMBERS = ['id', 'applicationId', 'serverVersion', 'scode', 'createdAt', 'updatedAt', 'createdBy'] as const;
export type VersionMember = (typeof VERSION_MEMBERS)[number];

/**
 * A page of versions with their definitions stops before its definitions pass this many bytes
 * (at least one version is answered): a default page cannot grow with the application's size
 * (20 versions of an 800-model app were ~35 MB). `metadata.total` still counts every version.
 */
export const VERSION_PAGE_BYTES = 4 * 1024 * 1024;

type VersionRow = Omit<Selectable<ApplicationVersionsTable>, 'scode'>;

function toVersion(row: VersionRow, scode: AppDefinition | undefined, fields: ReadonlySet<VersionMember> | null): Partial<ApplicationVersion> {
  const all: ApplicationVersion = {
    id: row.id,
    applicationId: row.application_id,
    serverVersion: row.server_version,
    scode: scode as AppDefinition,
    createdAt: toIso(row.created_at)!,
    updatedAt: toIso(row.updated_at)!,
    createdBy: row.created_by,
  };
  if (!fields) return all;
  const out: Partial<ApplicationVersion> = {};
  for (const member of VERSION_MEMBERS) if (member === 'id' || fields.has(member)) Object.assign(out, { [member]: all[member] });
  return out;
}

/** Parses `fields=serverVersion,createdAt` (the generated API's convention: `id` always; unknown → 400 naming each). */
export function parseVersionFields(raw: string | undefined): ReadonlySet<VersionMember> | null {
  if (raw === undefined || raw.trim() === '') return null;
  const names = raw.split(',').map((part) => part.trim());
  const bad = names.filter((n) => !(VERSION_MEMBERS as readonly string[]).includes(n)).map((n) => (n === '' ? '(empty)' : n));
  if (bad.length > 0) {
    throw badRequest(
      `The fields are not valid: ${bad.map((n) => `'${n}'`).join(', ')}: not a member of a version record (${VERSION_MEMBERS.join(', ')}).`,
      bad.map((n) => ({ path: '/fields', message: `'${n}' is not a member of a version record` })),
    );
  }
  return new Set(names as VersionMember[]);
}

const ROW_COLUMNS = ['id', 'application_id', 'server_version', 'manifest', 'created_at', 'updated_at', 'created_by'] as const;

/** The immutable history of an application's definitions (DESIGN §8), stored by difference (version-store.ts). */
export class VersionService {
  constructor(
    private readonly db: Db,
    private readonly applications: ApplicationService,
  ) {}

  /** Newest first; `fields` without `scode` reads no definition at all. */
  async list(
    customerId: string,
    applicationId: string,
    limit: number,
    offset: number,
    fields: ReadonlySet<VersionMember> | null = null,
  ): Promise<Page<Partial<ApplicationVersion>>> {
    await this.applications.findRow(this.db.kysely, customerId, applicationId);
    const base = this.db.kysely.selectFrom('appbuilder.application_version_rows').where('application_id', '=', applicationId);
    const [rows, count] = await Promise.all([
      base.select(ROW_COLUMNS).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    const total = Number(count.total);
    if (fields && !fields.has('scode')) return { items: rows.map((row) => toVersion(row, undefined, fields)), total };
    const items: Partial<ApplicationVersion>[] = [];
    let bytes = 0;
    for (const row of rows) {
      // One at a time, so a page never holds more definitions than it answers.
      const [scode] = await loadDefinitions(this.db.kysely, applicationId, [row.manifest as Manifest]);
      bytes += JSON.stringify(scode).length;
      if (items.length > 0 && bytes > VERSION_PAGE_BYTES) break;
      items.push(toVersion(row, scode, fields));
    }
    return { items, total };
  }

  /** One version, named by its id (a uuid) or its serverVersion. */
  async get(customerId: string, applicationId: string, version: string): Promise<ApplicationVersion> {
    await this.applications.findRow(this.db.kysely, customerId, applicationId);
    const byId = UUID.test(version);
    const row = await this.db.kysely
      .selectFrom('appbuilder.application_version_rows')
      .select(ROW_COLUMNS)
      .where('application_id', '=', applicationId)
      .where(byId ? 'id' : 'server_version', '=', version)
      .executeTakeFirst();
    if (!row) throw notFound(`Version ${version} of application ${applicationId} was not found.`, byId ? '/versionId' : '/serverVersion');
    const [scode] = await loadDefinitions(this.db.kysely, applicationId, [row.manifest as Manifest]);
    return toVersion(row, scode, null) as ApplicationVersion;
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
