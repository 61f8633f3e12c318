// Issue: a database dump was enough to mint a platform administrator's token, because
// the management signing key and the master key sat in plaintext in appbuilder.settings.
// These tests are the attacker with a dump of the embedded store in hand.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config.ts';
import { startPlatform, type Platform } from '../../src/platform.ts';
import { openPglite } from '../../src/storage/db.ts';
import { migrateControlPlane } from '../../src/storage/migrate.ts';
import { masterKeyFileFor } from '../../src/secrets/master-key.ts';
import { managementSigningKey } from '../../src/services/tokens.ts';
import { BOOTSTRAP } from '../support/platform.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function embeddedConfig(overrides: Partial<Config> = {}): Config {
  const root = mkdtempSync(join(tmpdir(), 'appbuilder-keys-'));
  dirs.push(root);
  const env = { ...process.env, APPBUILDER_MASTER_KEY: '', APPBUILDER_MASTER_KEY_FILE: '', APPBUILDER_TOKEN_SECRET: '', DATABASE_URL: '' };
  return loadConfig(env, { dataDir: join(root, 'data'), bootstrapClient: BOOTSTRAP, port: 0, host: '127.0.0.1', ...overrides });
}

async function token(platform: Platform): Promise<string> {
  const answer = await platform.server.inject({
    method: 'POST',
    url: '/v1/oauth/token',
    payload: { grant_type: 'client_credentials', client_id: BOOTSTRAP.id, client_secret: BOOTSTRAP.secret },
  });
  expect(answer.statusCode).toBe(200);
  return answer.json<{ access_token: string }>().access_token;
}

async function projectsStatus(platform: Platform, bearer: string): Promise<number> {
  const answer = await platform.server.inject({
    method: 'GET',
    url: '/v1/projects',
    headers: { authorization: `Bearer ${bearer}`, 'x-svc-api-client': BOOTSTRAP.id },
  });
  return answer.statusCode;
}

/** What an attacker would try with each value found in the dump: sign a token for the bootstrap administrator. */
async function forgeWith(key: Uint8Array, clientId: string): Promise<string> {
  return new SignJWT({ cus: 'any', key: BOOTSTRAP.id })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(clientId)
    .setIssuer('appbuilder')
    .setAudience('appbuilder-management')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(key);
}

describe('keys at rest (embedded store)', () => {
  it('keeps no signing or master key in the store; a dump mints no token; the key file is 0600 and survives a restart', async () => {
    const config = embeddedConfig();
    let platform = await startPlatform(config);
    let issued: string;
    try {
      issued = await token(platform);
      expect(await projectsStatus(platform, issued)).toBe(200);

      const settings = await platform.db.kysely.selectFrom('appbuilder.settings').selectAll().execute();
      expect(settings.map((row) => row.key)).not.toContain('master_key');
      expect(settings.map((row) => row.key)).not.toContain('token_signing_key');
      const client = await platform.db.kysely.selectFrom('appbuilder.api_clients').select('id').where('api_key', '=', BOOTSTRAP.id).executeTakeFirstOrThrow();
      for (const row of settings) {
        for (const key of [new TextEncoder().encode(row.value), Buffer.from(row.value, 'base64url'), Buffer.from(row.value, 'base64')]) {
          if (key.length === 0) continue;
          expect(await projectsStatus(platform, await forgeWith(key, client.id))).toBe(401);
        }
      }

      const keyFile = masterKeyFileFor(config.dataDir);
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      // The same forgery with the key from the file works: the test above could have failed.
      const master = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
      expect(await projectsStatus(platform, await forgeWith(managementSigningKey(null, master), client.id))).toBe(200);
    } finally {
      await platform.close();
    }
    platform = await startPlatform(config);
    try {
      expect(await projectsStatus(platform, issued)).toBe(200);
    } finally {
      await platform.close();
    }
  });

  it('moves a key an older version kept in the store into the key file and deletes both rows', async () => {
    const config = embeddedConfig();
    const legacyMaster = Buffer.alloc(32, 7).toString('base64');
    const db = await openPglite(config.dataDir);
    await migrateControlPlane(db);
    await db.kysely
      .insertInto('appbuilder.settings')
      .values([
        { key: 'master_key', value: legacyMaster },
        { key: 'token_signing_key', value: 'legacy-signing-key-value-that-was-plaintext' },
      ])
      .execute();
    await db.close();

    const platform = await startPlatform(config);
    try {
      expect(readFileSync(masterKeyFileFor(config.dataDir), 'utf8').trim()).toBe(legacyMaster);
      const keys = (await platform.db.kysely.selectFrom('appbuilder.settings').select('key').execute()).map((row) => row.key);
      expect(keys).not.toContain('master_key');
      expect(keys).not.toContain('token_signing_key');
      expect(await projectsStatus(platform, await token(platform))).toBe(200);
    } finally {
      await platform.close();
    }
  });
});

describe('APPBUILDER_TOKEN_SECRET', () => {
  it('is refused at start when shorter than 32 bytes, naming the variable and the length', async () => {
    const config = embeddedConfig({ tokenSecret: 'short-secret' });
    await expect(startPlatform(config)).rejects.toThrow(/APPBUILDER_TOKEN_SECRET must be at least 32 bytes \(it has 12\)/);
  });

  it('is used as given when long enough, and differs from the derived key', () => {
    const secret = 'a-configured-secret-of-forty-bytes-long!';
    expect(managementSigningKey(secret, Buffer.alloc(32, 1))).toEqual(new TextEncoder().encode(secret));
    expect(managementSigningKey(null, Buffer.alloc(32, 1))).not.toEqual(managementSigningKey(null, Buffer.alloc(32, 2)));
  });
});
