import { SignJWT, jwtVerify } from 'jose';
import { hkdfSync } from 'node:crypto';
import type { Db } from '../storage/db.ts';
import { Problem, unauthorized } from '../errors.ts';
import { verifySecret } from '../tools/secrets.ts';
import type { Actor, Role } from '../access/roles.ts';
import { authenticateBuilderToken, isBuilderToken } from '../access/builder-tokens.ts';

/** Who is calling the management API: an API client of one customer, or one of its builders. */
export interface Principal {
  clientId: string;
  customerId: string;
  apiKey: string;
  isPlatformAdmin: boolean;
  /** Who is calling: the API client itself, or a builder using one of its tokens (DESIGN §10). */
  actor: Actor;
  role: Role;
  /** The builder's id when a builder token is the bearer, else null. */
  builderId: string | null;
  /** Projects the caller may see; null means every project of the customer. */
  projectIds: string[] | null;
}

export interface AccessToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

const ISSUER = 'appbuilder';
const AUDIENCE = 'appbuilder-management';

/** Why a management token was refused: malformed, expired, not ours, or another client's. */
function tokenTrouble(error: unknown): string {
  switch ((error as { code?: unknown }).code) {
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return 'The access token is malformed: expected a JWT (three base64url parts separated by dots) from POST …/oauth/token.';
    case 'ERR_JWT_EXPIRED':
      return 'The access token expired; get a new one from POST …/oauth/token.';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return 'The access token was not issued by this service.';
    default:
      return 'The access token is not valid for this API client.';
  }
}

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

  /**
   * The signing key is APPBUILDER_TOKEN_SECRET (at least 32 bytes), else derived from the
   * master key, so the store holds nothing that mints a token. A key an older version kept
   * in the store's settings is deleted (tokens it signed stop working).
   */
  static async open(db: Db, ttlSeconds: number, signing: { configuredSecret: string | null; masterKey: Buffer }): Promise<TokenService> {
    await db.kysely.deleteFrom('appbuilder.settings').where('key', '=', 'token_signing_key').execute();
    return new TokenService(db, managementSigningKey(signing.configuredSecret, signing.masterKey), ttlSeconds);
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
    if (isBuilderToken(match[1])) {
      const builder = await authenticateBuilderToken(this.db, match[1], apiKeyHeader);
      return {
        clientId: builder.clientId,
        customerId: builder.customerId,
        apiKey: builder.apiKey,
        isPlatformAdmin: false,
        actor: { type: 'builder', id: builder.builderId },
        role: builder.role,
        builderId: builder.builderId,
        projectIds: builder.projectIds,
      };
    }
    let subject: string;
    try {
      const { payload } = await jwtVerify(match[1], this.key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
      if (payload.key !== apiKeyHeader || typeof payload.sub !== 'string') throw new Error('client mismatch');
      subject = payload.sub;
    } catch (error) {
      throw unauthorized(tokenTrouble(error));
    }
    const client = await this.db.kysely
      .selectFrom('appbuilder.api_clients')
      .select(['id', 'customer_id', 'api_key', 'is_platform_admin'])
      .where('id', '=', subject)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (!client || client.api_key !== apiKeyHeader) throw unauthorized('The API client is unknown or revoked.');
    return {
      clientId: client.id,
      customerId: client.customer_id,
      apiKey: client.api_key,
      isPlatformAdmin: client.is_platform_admin,
      actor: { type: 'apiClient', id: client.id },
      role: 'owner',
      builderId: null,
      projectIds: null,
    };
  }
}

const MIN_SECRET_BYTES = 32;

/** HS256 wants a key at least as long as its hash: a short configured secret is refused at start. */
export function managementSigningKey(configuredSecret: string | null, masterKey: Buffer): Uint8Array {
  if (configuredSecret !== null) {
    const bytes = new TextEncoder().encode(configuredSecret);
    if (bytes.length < MIN_SECRET_BYTES) {
      throw new Error(`APPBUILDER_TOKEN_SECRET must be at least ${MIN_SECRET_BYTES} bytes (it has ${bytes.length}); make one with \`openssl rand -base64 32\`, or unset it to derive the key from the master key.`);
    }
    return bytes;
  }
  return new Uint8Array(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'appbuilder management access tokens v1', 32));
}
