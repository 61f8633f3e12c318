// Marked statements run as named prepared statements on `pg` (src/storage/prepared.ts): parsed
// once per connection, the least recently used deallocated past the limit, unmarked ones unnamed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openPostgres, type Db } from '../../src/storage/db.ts';
import { PREPARED } from '../../src/storage/prepared.ts';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../support/databases.ts';

const hasPostgres = await postgresAvailable();

describe.runIf(hasPostgres)('prepared statements on PostgreSQL', () => {
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // One connection, so every statement below runs on the connection it inspects.
    db = await openPostgres(database.url!, 1);
  });

  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  const prepared = async () =>
    (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements order by name`.execute(db.kysely)).rows;
  /** A marked statement whose text (not a parameter) holds `n`. */
  const marked = (n: number) => sql<{ n: number }>`${sql.raw(PREPARED)}select ${sql.raw(String(n))}::int + ${1}::int as n`;

  it('prepares a marked statement once and reuses it; unmarked statements stay unnamed', async () => {
    expect((await marked(1).execute(db.kysely)).rows[0].n).toBe(2);
    expect((await marked(1).execute(db.kysely)).rows[0].n).toBe(2);
    await sql`select ${1}::int as n`.execute(db.kysely);
    const names = await prepared();
    expect(names).toHaveLength(1);
    expect(names[0].name).toMatch(/^appbuilder_\d+$/);
    expect(names[0].statement.startsWith(PREPARED)).toBe(true);
  });

  it('runs inside transactions and after a failed statement', async () => {
    await db.kysely.transaction().execute(async (trx) => {
      expect((await marked(1).execute(trx)).rows[0].n).toBe(2);
    });
    await expect(sql`${sql.raw(PREPARED)}select * from no_such_table`.execute(db.kysely)).rejects.toThrow(/no_such_table/);
    await sql`create table no_such_table (n int)`.execute(db.kysely);
    expect((await sql`${sql.raw(PREPARED)}select * from no_such_table`.execute(db.kysely)).rows).toEqual([]);
  });

  it('keeps at most 200 per connection, deallocating the least recently used, and prepares it again when needed', async () => {
    for (let i = 0; i < 230; i++) expect((await marked(1000 + i).execute(db.kysely)).rows[0].n).toBe(1001 + i);
    const names = await prepared();
    expect(names.length).toBe(200);
    expect(names.some((p) => p.statement.includes('1000::int'))).toBe(false);
    expect((await marked(1000).execute(db.kysely)).rows[0].n).toBe(1001);
    expect((await prepared()).some((p) => p.statement.includes('1000::int'))).toBe(true);
  });
});
