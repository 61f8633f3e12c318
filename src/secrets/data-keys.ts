// One random 256-bit data key per owner (an application or a project), stored wrapped by the
// master key (DESIGN §11). Unwrapped keys are cached: a data key never changes, only its
// wrapping does (rotate-master-key), so the cache stays right across a rotation.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Db, Executor } from '../storage/db.ts';
import { decryptSecret, encryptSecret } from '../tools/secrets.ts';
import { dataKeyAad, open, seal } from './envelope.ts';
import { withSecretTables } from './tables.ts';

export type OwnerKind = 'application' | 'project';

export interface Owner {
  kind: OwnerKind;
  id: string;
}

export class DataKeys {
  private readonly cache = new Map<string, Buffer>();

  constructor(
    private readonly db: Db,
    private readonly masterKey: Buffer,
  ) {}

  /**
   * The owner's data key, created (wrapped, stored) the first time. Inside a transaction
   * (`executor`) a key is not cached: the transaction may still roll its creation back.
   */
  async key(owner: Owner, executor?: Executor): Promise<Buffer> {
    const cached = this.cache.get(owner.id);
    if (cached) return cached;
    const db = withSecretTables(executor ?? this.db.kysely);
    let row = await db.selectFrom('appbuilder.data_keys').select('wrapped_key').where('owner_id', '=', owner.id).executeTakeFirst();
    if (!row) {
      const table = owner.kind === 'application' ? 'appbuilder.applications' : 'appbuilder.projects';
      const customer = await db.selectFrom(table).select('customer_id').where('id', '=', owner.id).executeTakeFirst();
      if (!customer) throw new Error(`No ${owner.kind} ${owner.id} to make a data key for.`);
      const wrapped = seal(randomBytes(32), this.masterKey, dataKeyAad(owner.id));
      await db
        .insertInto('appbuilder.data_keys')
        .values({
          owner_id: owner.id,
          customer_id: customer.customer_id,
          project_id: owner.kind === 'project' ? owner.id : null,
          application_id: owner.kind === 'application' ? owner.id : null,
          wrapped_key: wrapped,
        })
        // Another process (or request) may have made it first: its key is the one.
        .onConflict((oc) => oc.column('owner_id').doNothing())
        .execute();
      row = await db.selectFrom('appbuilder.data_keys').select('wrapped_key').where('owner_id', '=', owner.id).executeTakeFirstOrThrow();
    }
    const key = open(row.wrapped_key, this.masterKey, dataKeyAad(owner.id));
    if (!executor) this.cache.set(owner.id, key);
    return key;
  }
}

/**
 * Re-wraps every data key from `oldKey` to `newKey` in one transaction (all or none): the
 * values sealed under the data keys are untouched. Returns how many keys were re-wrapped.
 * Fails, changing nothing, if any data key does not open with `oldKey`.
 */
export async function rewrapDataKeys(db: Db, oldKey: Buffer, newKey: Buffer): Promise<number> {
  return db.kysely.transaction().execute(async (trx) => {
    const keys = withSecretTables(trx);
    // Locked: a data key created meanwhile by a running service would otherwise stay under the old key.
    await sql`lock table appbuilder.data_keys in exclusive mode`.execute(trx);
    const rows = await keys.selectFrom('appbuilder.data_keys').select(['owner_id', 'wrapped_key']).execute();
    for (const row of rows) {
      const plain = open(row.wrapped_key, oldKey, dataKeyAad(row.owner_id));
      await keys
        .updateTable('appbuilder.data_keys')
        .set({ wrapped_key: seal(plain, newKey, dataKeyAad(row.owner_id)), rotated_at: sql`now()` })
        .where('owner_id', '=', row.owner_id)
        .execute();
    }
    // Signing keys an older version sealed with the master key itself (not yet moved under a data key).
    const legacy = await trx.selectFrom('appbuilder.app_keys').select(['application_id', 'sealed_jwt_key']).where('sealed_jwt_key', 'like', 'v1.%').execute();
    for (const row of legacy) {
      const resealed = encryptSecret(decryptSecret(row.sealed_jwt_key, oldKey), newKey);
      await trx.updateTable('appbuilder.app_keys').set({ sealed_jwt_key: resealed }).where('application_id', '=', row.application_id).execute();
    }
    return rows.length;
  });
}
