import type { Kysely } from 'kysely';
import type { Db } from '../storage/db.ts';
import type { ControlPlane } from '../storage/tables.ts';
import { conflict, notFound } from '../errors.ts';
import { randomToken, uuidv7 } from '../tools/ids.ts';
import { hashSecret } from '../tools/secrets.ts';
import { toIso } from '../storage/sql.ts';

export interface ApiClientCredentials {
  id: string;
  name: string;
  apiKey: string;
  /** Shown once, at creation; only its hash is stored. */
  secret: string;
}

export interface ApiClientSummary {
  id: string;
  name: string;
  apiKey: string;
  isPlatformAdmin: boolean;
  createdAt: string;
  revokedAt?: string;
}

export class ApiClientService {
  constructor(private readonly db: Db) {}

  async create(
    customerId: string,
    options: { name?: string; isPlatformAdmin?: boolean; apiKey?: string; secret?: string } = {},
    executor: Kysely<ControlPlane> = this.db.kysely,
  ): Promise<ApiClientCredentials> {
    const id = uuidv7();
    const apiKey = options.apiKey ?? `ak_${randomToken(18)}`;
    const secret = options.secret ?? `sk_${randomToken(32)}`;
    const name = options.name ?? 'default';
    await executor
      .insertInto('appbuilder.api_clients')
      .values({
        id,
        customer_id: customerId,
        name,
        api_key: apiKey,
        secret_hash: await hashSecret(secret),
        is_platform_admin: options.isPlatformAdmin ?? false,
      })
      .execute();
    return { id, name, apiKey, secret };
  }

  async list(customerId: string, limit: number, offset: number): Promise<{ items: ApiClientSummary[]; total: number }> {
    const base = this.db.kysely.selectFrom('appbuilder.api_clients').where('customer_id', '=', customerId);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('id').limit(limit).offset(offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return {
      items: rows.map((row) => ({
        id: row.id,
        name: row.name,
        apiKey: row.api_key,
        isPlatformAdmin: row.is_platform_admin,
        createdAt: toIso(row.created_at)!,
        ...(row.revoked_at ? { revokedAt: toIso(row.revoked_at) } : {}),
      })),
      total: Number(count.total),
    };
  }

  /**
   * Revokes at once: every request re-reads the client, so its tokens stop working now. A client
   * may not revoke itself, nor the last active platform administrator (either would lock the
   * caller, or the whole service, out with no way back through the API).
   */
  async revoke(customerId: string, id: string, callerClientId: string): Promise<void> {
    if (id === callerClientId) {
      throw conflict('An API client cannot revoke itself: this request is made with its credentials. Revoke it with another owner client.', [
        { path: '/apiClientId', message: 'is the calling client' },
      ]);
    }
    await this.db.kysely.transaction().execute(async (trx) => {
      const target = await trx
        .selectFrom('appbuilder.api_clients')
        .select(['is_platform_admin'])
        .where('id', '=', id)
        .where('customer_id', '=', customerId)
        .where('revoked_at', 'is', null)
        .forUpdate()
        .executeTakeFirst();
      if (!target) throw notFound(`API client ${id} was not found.`, '/apiClientId');
      if (target.is_platform_admin) {
        // Locked: two revocations at once cannot each leave the other as the last one.
        const admins = await trx
          .selectFrom('appbuilder.api_clients')
          .select('id')
          .where('is_platform_admin', '=', true)
          .where('revoked_at', 'is', null)
          .forUpdate()
          .execute();
        if (admins.length <= 1) {
          throw conflict('This is the last active platform administrator client: create another one before revoking it.', [
            { path: '/apiClientId', message: 'is the last active platform administrator' },
          ]);
        }
      }
      await trx.updateTable('appbuilder.api_clients').set({ revoked_at: new Date() }).where('id', '=', id).execute();
    });
  }
}
