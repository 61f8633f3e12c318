// Builder tokens (DESIGN §10): `abt_` + 32 random bytes (base64url), shown once, stored only as
// a SHA-256 hash. The token carries 256 bits of entropy, so a fast unsalted hash is enough (no
// password stretching needed) and lets every request find its row by one indexed lookup: no
// cache, so a revocation, a deactivation or a deletion is refused on the very next request in
// every process.
import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../storage/db.ts';
import { unauthorized } from '../errors.ts';
import type { Role } from './roles.ts';

export const BUILDER_TOKEN_PREFIX = 'abt_';
/** `last_used_at` / `last_active_at` are written at most this often per token (not once per request). */
const ACTIVITY_RESOLUTION_MS = 60_000;

export function newBuilderToken(): string {
  return `${BUILDER_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function hashBuilderToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function isBuilderToken(bearer: string): boolean {
  return bearer.startsWith(BUILDER_TOKEN_PREFIX);
}

export interface BuilderCaller {
  clientId: string;
  customerId: string;
  apiKey: string;
  builderId: string;
  role: Role;
  projectIds: string[] | null;
}

/**
 * The builder a token stands for, with the API client whose key came with it: both must belong
 * to the same customer, the builder be active and the token neither revoked nor expired.
 */
export async function authenticateBuilderToken(db: Db, token: string, apiKey: string): Promise<BuilderCaller> {
  const row = await db.kysely
    .selectFrom('appbuilder.builder_tokens as t')
    .innerJoin('appbuilder.builders as b', 'b.id', 't.builder_id')
    .innerJoin('appbuilder.api_clients as c', 'c.customer_id', 'b.customer_id')
    .select(['t.id as tokenId', 't.expires_at', 't.last_used_at', 'b.id as builderId', 'b.role', 'b.project_ids', 'c.id as clientId', 'c.customer_id', 'c.api_key'])
    .where('t.token_hash', '=', hashBuilderToken(token))
    .where('t.revoked_at', 'is', null)
    .where('b.is_active', '=', true)
    .where('c.api_key', '=', apiKey)
    .where('c.revoked_at', 'is', null)
    .executeTakeFirst();
  // One answer for an unknown, revoked or another customer's token: nothing to probe.
  if (!row) throw unauthorized('The builder token is unknown, revoked, or not valid with this API key, or its builder is inactive.');
  if (new Date(row.expires_at).getTime() <= Date.now()) throw unauthorized('The builder token expired; create a new one with POST …/builders/{builderId}/tokens.');
  const lastUsed = row.last_used_at ? new Date(row.last_used_at).getTime() : 0;
  if (Date.now() - lastUsed >= ACTIVITY_RESOLUTION_MS) await touch(db, row.tokenId, row.builderId);
  return {
    clientId: row.clientId,
    customerId: row.customer_id,
    apiKey: row.api_key,
    builderId: row.builderId,
    role: row.role,
    projectIds: row.project_ids,
  };
}

/** Records the use, at most once a minute per token (the conditions keep concurrent requests to one write). */
async function touch(db: Db, tokenId: string, builderId: string): Promise<void> {
  const stale = sql<Date>`now() - make_interval(secs => ${ACTIVITY_RESOLUTION_MS / 1000})`;
  await db.kysely
    .updateTable('appbuilder.builder_tokens')
    .set({ last_used_at: sql`now()` })
    .where('id', '=', tokenId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', stale)]))
    .execute();
  await db.kysely
    .updateTable('appbuilder.builders')
    .set({ last_active_at: sql`now()` })
    .where('id', '=', builderId)
    .where((eb) => eb.or([eb('last_active_at', 'is', null), eb('last_active_at', '<', stale)]))
    .execute();
}
