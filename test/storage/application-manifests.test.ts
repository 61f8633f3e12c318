// Migration 018 (issue 28): application rows written before it, with the whole definition in
// `scode`, are converted to a manifest of blobs; the definition read back through the version
// store is the one that was stored, byte for byte after canonical JSON, and the blobs are shared
// with the versions that have them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { migrateControlPlane } from '../../src/storage/migrate.ts';
import { MIGRATIONS } from '../../src/storage/migrations/index.ts';
import { canonicalJson, type Manifest } from '../../src/definition/versioning/stored-form.ts';
import { loadCurrentDefinition } from '../../src/services/applications/version-store.ts';
import type { ControlPlane } from '../../src/storage/tables.ts';
import { availableDrivers, createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { largeScode } from '../deployments/large-definition.ts';

const drivers = await availableDrivers();

describe.each(drivers)('migration 018: application manifests (%s)', (driver) => {
  let database: TestDatabase;
  const customer = '0190a1b2-c3d4-7e5f-8a9b-000000000001';
  const project = '0190a1b2-c3d4-7e5f-8a9b-000000000002';
  const apps = ['0190a1b2-c3d4-7e5f-8a9b-000000000003', '0190a1b2-c3d4-7e5f-8a9b-000000000004'];
  const definitions = [largeScode(40), { ...largeScode(3), appDraft: { notes: 'kept' } }];

  beforeAll(async () => {
    database = await createTestDatabase(driver);
    await migrateControlPlane(database.db, MIGRATIONS.filter((m) => m.version < 18));
    const db = database.db.kysely as unknown as Kysely<unknown>;
    await sql`insert into appbuilder.customers (id, name) values (${customer}, 'C')`.execute(db);
    await sql`insert into appbuilder.projects (id, customer_id, name) values (${project}, ${customer}, 'P')`.execute(db);
    for (const [i, id] of apps.entries()) {
      await sql`insert into appbuilder.applications (id, customer_id, project_id, scode, server_version)
                values (${id}, ${customer}, ${project}, cast(${JSON.stringify(definitions[i])} as jsonb), '1.0.0')`.execute(db);
    }
    await migrateControlPlane(database.db);
  }, 120_000);
  afterAll(() => database?.drop());

  it('keeps a manifest per row and reads back every definition exactly', async () => {
    const kysely = database.db.kysely as Kysely<ControlPlane>;
    const columns = await sql<{ column_name: string }>`
      select column_name from information_schema.columns where table_schema = 'appbuilder' and table_name = 'applications'`.execute(kysely);
    expect(columns.rows.map((c) => c.column_name)).toContain('manifest');
    expect(columns.rows.map((c) => c.column_name)).not.toContain('scode');
    for (const [i, id] of apps.entries()) {
      const row = await kysely.selectFrom('appbuilder.applications').select(['manifest', 'server_version']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(row.server_version).toBe('1.0.0');
      const loaded = await loadCurrentDefinition(kysely, id, row.manifest as Manifest);
      expect(canonicalJson(loaded.definition)).toBe(canonicalJson(definitions[i]));
      expect(Object.isFrozen(loaded.definition.models[0])).toBe(true);
    }
  });
});
