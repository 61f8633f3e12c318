import { randomBytes, webcrypto } from 'node:crypto';
import type { Db } from '../storage/db.ts';
import { decryptSecret, encryptSecret } from '../tools/secrets.ts';

/** Per-application JWT signing keys for end users, sealed with the master key, cached in memory. */
export class AppKeys {
  private readonly cache = new Map<string, Uint8Array>();
  private readonly imported = new Map<string, Promise<webcrypto.CryptoKey>>();

  constructor(
    private readonly db: Db,
    private readonly masterKey: Buffer,
  ) {}

  async signingKey(applicationId: string): Promise<Uint8Array> {
    const cached = this.cache.get(applicationId);
    if (cached) return cached;
    await this.db.kysely
      .insertInto('appbuilder.app_keys')
      .values({ application_id: applicationId, sealed_jwt_key: encryptSecret(randomBytes(32).toString('base64'), this.masterKey) })
      .onConflict((oc) => oc.column('application_id').doNothing())
      .execute();
    const row = await this.db.kysely
      .selectFrom('appbuilder.app_keys')
      .select('sealed_jwt_key')
      .where('application_id', '=', applicationId)
      .executeTakeFirstOrThrow();
    const key = Buffer.from(decryptSecret(row.sealed_jwt_key, this.masterKey), 'base64');
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
