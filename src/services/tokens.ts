import { SignJWT, jwtVerify } from 'jose';
import { randomBytes } from 'node:crypto';
import type { Db } from '../storage/db.ts';
import { Problem, unauthorized } from '../errors.ts';
import { verifySecret } from '../tools/secrets.ts';
import { settingOrCreate } from '../storage/settings.ts';

/** Who is calling the management API: an API client of one customer. */
export interface Principal {
  clientId: string;
  customerId: string;
  apiKey: string;
  isPlatformAdmin: boolean;
}

export interface AccessToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

const ISSUER = 'appbuilder';
const AUDIENCE = 'appbuilder-management';

/**
 * Access tokens for the management API (OAuth 2 client credentials). Tokens are
 * short-lived HS256 JWTs bound to one client; every request re-reads the client,
 * so a revoked client is refused at once.
 */
export class TokenService {
  private constructor(
    private readonly db: Db,
    private readonly key: Uint8Array,
    private readonly ttlSeconds: number,
  ) {}

  /** The signing key comes from APPBUILDER_TOKEN_SECRET, else one generated and kept in the store. */
  static async open(db: Db, ttlSeconds: number, configuredSecret = process.env.APPBUILDER_TOKEN_SECRET): Promise<TokenService> {
    if (configuredSecret) return new TokenService(db, new TextEncoder().encode(configuredSecret), ttlSeconds);
    const stored = await settingOrCreate(db, 'token_signing_key', () => randomBytes(32).toString('base64url'));
    return new TokenService(db, Buffer.from(stored, 'base64url'), ttlSeconds);
  }

  async issue(apiKey: string, secret: string): Promise<AccessToken> {
    const client = await this.db.kysely
      .selectFrom('appbuilder.api_clients')
      .select(['id', 'customer_id', 'secret_hash'])
      .where('api_key', '=', apiKey)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    // Same answer for an unknown key and a wrong secret: nothing to enumerate.
    if (!client || !(await verifySecret(secret, client.secret_hash))) {
      throw new Problem(401, 'The client credentials are not valid.', [], 'invalid_client');
    }
    const token = await new SignJWT({ cus: client.customer_id, key: apiKey })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(client.id)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${this.ttlSeconds}s`)
      .sign(this.key);
    return { access_token: token, token_type: 'Bearer', expires_in: this.ttlSeconds };
  }

  async authenticate(authorization: string | undefined, apiKeyHeader: string | undefined): Promise<Principal> {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
    if (!match || !apiKeyHeader) throw unauthorized('Send Authorization: Bearer <token> and x-svc-api-client: <API key>.');
    let subject: string;
    try {
      const { payload } = await jwtVerify(match[1], this.key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
      if (payload.key !== apiKeyHeader || typeof payload.sub !== 'string') throw new Error('client mismatch');
      subject = payload.sub;
    } catch {
      throw unauthorized('The access token is not valid for this API client.');
    }
    const client = await this.db.kysely
      .selectFrom('appbuilder.api_clients')
      .select(['id', 'customer_id', 'api_key', 'is_platform_admin'])
      .where('id', '=', subject)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (!client || client.api_key !== apiKeyHeader) throw unauthorized('The API client is unknown or revoked.');
    return { clientId: client.id, customerId: client.customer_id, apiKey: client.api_key, isPlatformAdmin: client.is_platform_admin };
  }
}
