// Builder tokens (DESIGN §10): `abt_` + 32 random bytes (base64url), shown once, stored only as
// a SHA-256 hash. The token carries 256 bits of entropy, so a fast unsalted hash is enough (no
// password stretching needed) and lets every request find its row by one indexed lookup: no
// cache, so a revocation, a deactivation or a deletion is refused on the very next request in
// every process.
import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../storage/db.ts';
import { unauthorized } from '../errors.ts';
import { PREPARED } from '../storage/prepared.ts';
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

interface TokenRow {
  tokenId: string;
  expires_at: Date | string;
  last_used_at: Date | string | null;
  builderId: string;
  role: Role;
  project_ids: string[] | null;
  clientId: string;
  customer_id: string;
  api_key: string;
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
  // A named prepared statement on `pg` (storage/prepared.ts): planned once per connection, not
  // on every request (measured: the planned join cost ~2.5× the API client's one-table read).
  const result = await sql<TokenRow>`${sql.raw(PREPARED)}select t.id as "tokenId", t.expires_at, t.last_used_at, b.id as "builderId", b.role,
      b.project_ids, c.id as "clientId", c.customer_id, c.api_key
    from appbuilder.builder_tokens t
    join appbuilder.builders b on b.id = t.builder_id
    join appbuilder.api_clients c on c.customer_id = b.customer_id
    where t.token_hash = ${hashBuilderToken(token)} and t.revoked_at is null and b.is_active
      and c.api_key = ${apiKey} and c.revoked_at is null`.execute(db.kysely);
  const row = result.rows[0];
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
