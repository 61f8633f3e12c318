import { randomBytes, webcrypto } from 'node:crypto';
import type { Db } from '../storage/db.ts';
import { decryptSecret } from '../tools/secrets.ts';
import { DataKeys } from '../secrets/data-keys.ts';
import { isSealed, open, seal, signingKeyAad } from '../secrets/envelope.ts';

/**
 * Per-application JWT signing keys for end users, sealed under the application's data key
 * (envelope, DESIGN §11), cached in memory. A key an older version sealed with the master key
 * itself is moved under the data key the first time it is read.
 */
export class AppKeys {
  private readonly cache = new Map<string, Uint8Array>();
  private readonly imported = new Map<string, Promise<webcrypto.CryptoKey>>();
  private readonly dataKeys: DataKeys;

  constructor(
    private readonly db: Db,
    private readonly masterKey: Buffer,
  ) {
    this.dataKeys = new DataKeys(db, masterKey);
  }

  async signingKey(applicationId: string): Promise<Uint8Array> {
    const cached = this.cache.get(applicationId);
    if (cached) return cached;
    const dataKey = await this.dataKeys.key({ kind: 'application', id: applicationId });
    const aad = signingKeyAad(applicationId);
    await this.db.kysely
      .insertInto('appbuilder.app_keys')
      .values({ application_id: applicationId, sealed_jwt_key: seal(randomBytes(32), dataKey, aad) })
      .onConflict((oc) => oc.column('application_id').doNothing())
      .execute();
    const row = await this.db.kysely
      .selectFrom('appbuilder.app_keys')
      .select('sealed_jwt_key')
      .where('application_id', '=', applicationId)
      .executeTakeFirstOrThrow();
    let key: Buffer;
    if (isSealed(row.sealed_jwt_key)) {
      key = open(row.sealed_jwt_key, dataKey, aad);
    } else {
      key = Buffer.from(decryptSecret(row.sealed_jwt_key, this.masterKey), 'base64');
      await this.db.kysely
        .updateTable('appbuilder.app_keys')
        .set({ sealed_jwt_key: seal(key, dataKey, aad) })
        .where('application_id', '=', applicationId)
        .where('sealed_jwt_key', '=', row.sealed_jwt_key)
        .execute();
    }
    this.cache.set(applicationId, key);
    return key;
  }

  /** The signing key imported once for HS256 (importing it on every request costs a few per cent of a trigger's CPU). */
  jwtKey(applicationId: string): Promise<webcrypto.CryptoKey> {
    let key = this.imported.get(applicationId);
    if (!key) {
      key = this.signingKey(applicationId).then((raw) =>
        webcrypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']),
      );
      key.catch(() => this.imported.delete(applicationId));
      this.imported.set(applicationId, key);
    }
    return key;
  }
}
