// Envelope encryption at rest (DESIGN §11): a ciphertext moved to another row (another name, or
// another application) does not open; rotating the master key keeps every value readable (and
// the apps' signing keys); PostgreSQL refuses to start without a configured key, and a key an
// older version kept in the database must be moved out.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateMasterKey } from '../../src/cli/rotate-master-key.ts';
import { loadConfig } from '../../src/config.ts';
import { startPlatform } from '../../src/platform.ts';
import { AppKeys } from '../../src/runtime/app-keys.ts';
import { AppValuesCache } from '../../src/secrets/app-values.ts';
import { open, seal, SealError, valueAad } from '../../src/secrets/envelope.ts';
import { masterKeyFileFor } from '../../src/secrets/master-key.ts';
import { availableDrivers, createTestDatabase, postgresAvailable, TEST_MASTER_KEY } from '../support/databases.ts';
import { BOOTSTRAP, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';
import { todoScode } from '../support/examples.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'appbuilder-envelope-'));
  dirs.push(dir);
  return dir;
};

describe('seal and open', () => {
  it('opens only with the same key and the same additional data', () => {
    const key = Buffer.alloc(32, 1);
    const sealed = seal('value', key, valueAad('owner', 'NAME', 1));
    expect(open(sealed, key, valueAad('owner', 'NAME', 1)).toString()).toBe('value');
    expect(() => open(sealed, key, valueAad('owner', 'OTHER', 1))).toThrow(SealError);
    expect(() => open(sealed, key, valueAad('owner', 'NAME', 2))).toThrow(SealError);
    expect(() => open(sealed, Buffer.alloc(32, 2), valueAad('owner', 'NAME', 1))).toThrow(SealError);
    // A fresh nonce each time: the same value seals differently.
    expect(seal('value', key, 'x')).not.toBe(seal('value', key, 'x'));
  });
});

describe.each(await availableDrivers())('sealed values in the store, on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  let first: string;
  let second: string;
  const master = Buffer.from(TEST_MASTER_KEY, 'base64');

  const put = (appId: string, name: string, value: string) =>
    tenant.api.request('PUT', `/v1/applications/${appId}/secrets/${name}`, { body: { value } }).then((r) => expect(r.status).toBe(201));
  const sealedOf = async (appId: string, name: string) =>
    (await sql<{ sealed_value: string }>`select sealed_value from appbuilder.config_values where application_id = ${appId} and name = ${name}`.execute(t.platform.db.kysely))
      .rows[0].sealed_value;
  const setSealed = (appId: string, name: string, sealed: string) =>
    sql`update appbuilder.config_values set sealed_value = ${sealed} where application_id = ${appId} and name = ${name}`.execute(t.platform.db.kysely);

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Envelope');
    first = (await createTodoApp(tenant)).id;
    second = (await createTodoApp(tenant)).id;
    await put(first, 'ALPHA', 'alpha-value');
    await put(first, 'BETA', 'beta-value');
    await put(second, 'ALPHA', 'second-alpha-value');
  }, 120_000);
  afterAll(async () => t?.close());

  it('reads each value back through its own row', async () => {
    const values = await new AppValuesCache(t.platform.db, master).forApplication(first);
    expect(values.secrets).toEqual({ ALPHA: 'alpha-value', BETA: 'beta-value' });
  });

  it('refuses a ciphertext copied to another name or another application', async () => {
    const alpha = await sealedOf(first, 'ALPHA');
    const beta = await sealedOf(first, 'BETA');
    const secondAlpha = await sealedOf(second, 'ALPHA');
    try {
      await setSealed(first, 'BETA', alpha);
      await expect(new AppValuesCache(t.platform.db, master).forApplication(first)).rejects.toThrow(SealError);
      await setSealed(first, 'BETA', beta);
      // The same name in another application: another data key and another owner in the additional data.
      await setSealed(second, 'ALPHA', alpha);
      await expect(new AppValuesCache(t.platform.db, master).forApplication(second)).rejects.toThrow(SealError);
    } finally {
      await setSealed(first, 'BETA', beta);
      await setSealed(second, 'ALPHA', secondAlpha);
    }
    expect((await new AppValuesCache(t.platform.db, master).forApplication(second)).secrets).toEqual({ ALPHA: 'second-alpha-value' });
  });

  it('keeps no key in the database: data keys are wrapped, the settings hold no master key', async () => {
    const keys = await sql<{ wrapped_key: string }>`select wrapped_key from appbuilder.data_keys`.execute(t.platform.db.kysely);
    expect(keys.rows.length).toBeGreaterThanOrEqual(2);
    for (const row of keys.rows) expect(row.wrapped_key).toMatch(/^v2\./);
    const settings = await sql<{ key: string }>`select key from appbuilder.settings`.execute(t.platform.db.kysely);
    expect(settings.rows.map((r) => r.key)).not.toContain('master_key');
  });
});

describe.runIf(await postgresAvailable())('master key on PostgreSQL', () => {
  it('refuses to start without a configured key, saying how to make one', async () => {
    const database = await createTestDatabase('postgres');
    try {
      const config = loadConfig({ ...process.env, APPBUILDER_MASTER_KEY: '' }, { bootstrapClient: BOOTSTRAP, databaseUrl: database.url });
      await expect(startPlatform(config, { db: database.db })).rejects.toThrow(/No master key is configured.*openssl rand -base64 32.*APPBUILDER_MASTER_KEY/s);
    } finally {
      await database.drop();
    }
  });

  it('refuses a key kept in the database with instructions, then moves it out when configured', async () => {
    const database = await createTestDatabase('postgres');
    const legacy = Buffer.alloc(32, 9).toString('base64');
    try {
      const bare = loadConfig({ ...process.env, APPBUILDER_MASTER_KEY: '' }, { bootstrapClient: BOOTSTRAP, databaseUrl: database.url });
      // An older version's store: migrated, with its key in the settings.
      await expect(startPlatform(bare, { db: database.db })).rejects.toThrow(/No master key/);
      await sql`insert into appbuilder.settings (key, value) values ('master_key', ${legacy})`.execute(database.db.kysely);
      await expect(startPlatform(bare, { db: database.db })).rejects.toThrow(/Move it out: set APPBUILDER_MASTER_KEY/);
      await expect(startPlatform({ ...bare, masterKey: TEST_MASTER_KEY }, { db: database.db })).rejects.toThrow(/is another key/);
      const platform = await startPlatform({ ...bare, masterKey: legacy }, { db: database.db });
      await platform.close();
      const left = await sql<{ key: string }>`select key from appbuilder.settings where key = 'master_key'`.execute(database.db.kysely);
      expect(left.rows).toEqual([]);
    } finally {
      await database.drop();
    }
  });

  it('rotates to a new key file: every value and signing key still opens, with the new key only', async () => {
    const t = await startTestPlatform('postgres');
    try {
      const tenant = await createTenant(t, 'Rotation');
      const appId = (await createTodoApp(tenant)).id;
      await tenant.api.request('PUT', `/v1/applications/${appId}/secrets/TOKEN`, { body: { value: 'app-token' } });
      await tenant.api.request('PUT', `/v1/projects/${tenant.projectId}/secrets/SHARED`, { body: { value: 'project-shared' } });
      await tenant.api.request('PUT', `/v1/applications/${appId}/variables/MODE`, { body: { value: 'live' } });
      const oldKey = Buffer.from(TEST_MASTER_KEY, 'base64');
      const signing = await new AppKeys(t.platform.db, oldKey).signingKey(appId);
      const before = await sql<{ sealed_value: string }>`select sealed_value from appbuilder.config_values where name = 'TOKEN'`.execute(t.platform.db.kysely);

      const newKeyFile = join(tempDir(), 'new.key');
      const newKey = Buffer.alloc(32, 0x33);
      writeFileSync(newKeyFile, newKey.toString('base64'), { mode: 0o600 });
      const result = await rotateMasterKey(loadConfig({ ...process.env }, { databaseUrl: t.database.url, masterKey: TEST_MASTER_KEY }), { newKeyFile });
      expect(result.rewrapped).toBe(2);

      const values = await new AppValuesCache(t.platform.db, newKey).forApplication(appId);
      expect(values).toMatchObject({ env: { MODE: 'live' }, secrets: { TOKEN: 'app-token', SHARED: 'project-shared' } });
      expect(await new AppKeys(t.platform.db, newKey).signingKey(appId)).toEqual(signing);
      await expect(new AppValuesCache(t.platform.db, oldKey).forApplication(appId)).rejects.toThrow(SealError);
      // The values themselves were not rewritten.
      const after = await sql<{ sealed_value: string }>`select sealed_value from appbuilder.config_values where name = 'TOKEN'`.execute(t.platform.db.kysely);
      expect(after.rows[0].sealed_value).toBe(before.rows[0].sealed_value);
    } finally {
      await t.close();
    }
  });
});

describe('rotation on the embedded store', () => {
  it('replaces the key file beside the data dir (0600); the service reads every value after a restart', async () => {
    const dataDir = join(tempDir(), 'data');
    const config = loadConfig({ ...process.env, APPBUILDER_MASTER_KEY: '', DATABASE_URL: '' }, { dataDir, bootstrapClient: BOOTSTRAP, port: 0, host: '127.0.0.1' });
    let platform = await startPlatform(config);
    let appId: string;
    try {
      const customer = (await platform.db.kysely.selectFrom('appbuilder.customers').select('id').executeTakeFirstOrThrow()).id;
      const project = await platform.services.projects.create(customer, { name: 'P' });
      appId = (await platform.services.applications.create(customer, { projectId: project.id, name: 'A', scode: todoScode() })).id;
      await platform.services.configuration.put(customer, { kind: 'application', id: appId }, 'secret', 'KEY', 'embedded-secret', { type: 'apiClient', id: 'test' });
    } finally {
      await platform.close();
    }
    const keyFile = masterKeyFileFor(dataDir);
    const oldKey = readFileSync(keyFile, 'utf8');
    const result = await rotateMasterKey(config);
    expect(result.rewrapped).toBe(1);
    const newKey = readFileSync(keyFile, 'utf8');
    expect(newKey).not.toBe(oldKey);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    platform = await startPlatform(config);
    try {
      const values = await new AppValuesCache(platform.db, Buffer.from(newKey.trim(), 'base64')).forApplication(appId);
      expect(values.secrets).toEqual({ KEY: 'embedded-secret' });
    } finally {
      await platform.close();
    }
    // A fresh embedded data dir and two starts of it: slow on a loaded machine.
  }, 300_000);
});
