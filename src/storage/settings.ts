import type { Db } from './db.ts';

/**
 * Reads a setting of this installation, creating it with `generate()` the first
 * time. Safe when several processes start at once: the first insert wins.
 */
export async function settingOrCreate(db: Db, key: string, generate: () => string): Promise<string> {
  await db.kysely
    .insertInto('appbuilder.settings')
    .values({ key, value: generate() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.kysely.selectFrom('appbuilder.settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
  return row.value;
}
