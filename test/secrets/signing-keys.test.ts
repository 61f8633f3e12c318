// The apps' end-user signing keys live under the same envelope as secrets (DESIGN §11): sealed
// under the application's data key, and a key an older version sealed with the master key itself
// moves under the data key the first time it is read (the same key: tokens stay valid).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppKeys } from '../../src/runtime/app-keys.ts';
import { encryptSecret } from '../../src/tools/secrets.ts';
import { availableDrivers, TEST_MASTER_KEY } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type Tenant } from '../support/tenant.ts';

describe.each(await availableDrivers())('app signing keys under the envelope, on %s', (driver) => {
  let t: TestPlatform;
  let tenant: Tenant;
  const master = Buffer.from(TEST_MASTER_KEY, 'base64');
  const sealedOf = async (appId: string) =>
    (await t.platform.db.kysely.selectFrom('appbuilder.app_keys').select('sealed_jwt_key').where('application_id', '=', appId).executeTakeFirstOrThrow()).sealed_jwt_key;

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    tenant = await createTenant(t, 'Signing');
  }, 120_000);
  afterAll(async () => t?.close());

  it('seals a new key under the data key, and reads the same key in another process', async () => {
    const appId = (await createTodoApp(tenant)).id;
    const key = await new AppKeys(t.platform.db, master).signingKey(appId);
    expect(key).toHaveLength(32);
    expect(await sealedOf(appId)).toMatch(/^v2\./);
    expect(await new AppKeys(t.platform.db, master).signingKey(appId)).toEqual(key);
    await expect(new AppKeys(t.platform.db, Buffer.alloc(32, 1)).signingKey(appId)).rejects.toThrow();
  });

  it('moves a key sealed with the master key itself under the data key, keeping its value', async () => {
    const appId = (await createTodoApp(tenant)).id;
    const legacy = randomBytes(32);
    await t.platform.db.kysely
      .insertInto('appbuilder.app_keys')
      .values({ application_id: appId, sealed_jwt_key: encryptSecret(legacy.toString('base64'), master) })
      .execute();
    expect(await sealedOf(appId)).toMatch(/^v1\./);
    expect(Buffer.from(await new AppKeys(t.platform.db, master).signingKey(appId))).toEqual(legacy);
    expect(await sealedOf(appId)).toMatch(/^v2\./);
    expect(Buffer.from(await new AppKeys(t.platform.db, master).signingKey(appId))).toEqual(legacy);
  });
});
