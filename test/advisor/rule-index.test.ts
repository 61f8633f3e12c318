// The index an owner rule needs is made without being asked, and PostgreSQL uses it: with 100k
// to-dos of 1,000 users, the rule's condition for one signed-in user (the runtime's own rule SQL)
// is planned as an index scan, for a relationship owner (`record.user == auth.id`) and for a plain
// column compared with the caller's id (`record.ownerId == auth.id`, indexed by rule-indexes.ts).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { columnNameForField, tableNameForModel } from '../../src/definition/naming.ts';
import { applyMigration, planMigration } from '../../src/compiler/schema/index.ts';
import { compileApp } from '../../src/runtime/compiled-app.ts';
import { accessCondition } from '../../src/runtime/data/rule-sql.ts';
import { ident } from '../../src/storage/sql.ts';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../support/databases.ts';
import { todoScodeWithoutEvents } from '../runtime/served-app.ts';

const APP = '00000000-0000-4000-8000-0000000000a1';
const OWNER_ID = 'urn:svc:edge:todo-owner-id';

function definition(): AppDefinition {
  const scode = todoScodeWithoutEvents() as unknown as { models: Array<{ id: string; fields: unknown[]; accessControl: unknown }> };
  const todo = scode.models.find((m) => m.id === 'urn:svc:model:todo')!;
  todo.fields.push({ id: OWNER_ID, name: 'ownerId', relationshipOwner: true, min: 0, max: 1, to: 'p_TEXT', accessControl: { rules: [] } });
  todo.accessControl = {
    rules: [
      { access: 'allow', criteria: "auth != null && operation == 'read' && record.ownerId == auth.id" },
      { access: 'allow', criteria: 'auth != null && record.user == auth.id' },
    ],
    defaultAccess: 'deny',
  };
  return scode as unknown as AppDefinition;
}

describe.runIf(await postgresAvailable())('the owner rule uses an index on postgres', () => {
  let database: TestDatabase;
  const app = compileApp(APP, '1.0.0', definition());
  const todo = app.modelsByResource.get('toDos')!;
  let someUser: string;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    await applyMigration(database.db, planMigration(null, app.definition, APP));
    const users = ident(app.schema, tableNameForModel('urn:svc:model:user'));
    const todos = ident(app.schema, todo.table);
    const col = (id: string) => ident(columnNameForField(id));
    await sql`insert into ${users} (${col('urn:svc:edge:user-name')}, ${col('urn:svc:edge:user-email')})
      select 'User ' || i, 'user' || i || '@example.test' from generate_series(1, 1000) i`.execute(database.db.kysely);
    await sql`insert into ${todos} (${col('urn:svc:edge:todo-title')}, ${col('urn:svc:edge:todo-status')}, ${col('urn:svc:edge:todo-user')}, ${col(OWNER_ID)})
      select 'To-do ' || i, 'open', u.id, u.id::text
      from generate_series(1, 100000) i
      join (select id, row_number() over (order by id) - 1 as n from ${users}) u on u.n = i % 1000`.execute(database.db.kysely);
    await sql`analyze ${todos}`.execute(database.db.kysely);
    someUser = (await sql<{ id: string }>`select id from ${users} limit 1`.execute(database.db.kysely)).rows[0].id;
  }, 240_000);
  afterAll(() => database?.drop());

  const plan = async (operation: 'read' | 'update') => {
    const condition = accessCondition(app, todo, { auth: { id: someUser }, operation, now: new Date(), env: {} }, 't');
    expect(condition.kind).toBe('where');
    if (condition.kind !== 'where') return '';
    const result = await sql<{ 'QUERY PLAN': string }>`explain select t.id from ${ident(app.schema, todo.table)} t where ${condition.sql}`.execute(database.db.kysely);
    return result.rows.map((row) => row['QUERY PLAN']).join('\n');
  };

  it('has 100k rows, and indexes on both owner columns', async () => {
    const count = await sql<{ n: number }>`select count(*)::int as n from ${ident(app.schema, todo.table)}`.execute(database.db.kysely);
    expect(count.rows[0].n).toBe(100_000);
    const indexes = await sql<{ indexdef: string }>`select indexdef from pg_indexes where schemaname = ${app.schema} and tablename = ${todo.table}`.execute(database.db.kysely);
    const defs = indexes.rows.map((row) => row.indexdef).join('\n');
    expect(defs).toContain(columnNameForField('urn:svc:edge:todo-user'));
    expect(defs).toContain(columnNameForField(OWNER_ID));
  });

  it('plans the owner rule of a signed-in user as index scans, never a scan of the whole table', async () => {
    for (const operation of ['read', 'update'] as const) {
      const text = await plan(operation);
      expect(text, text).toMatch(/Index Scan|Index Only Scan|Bitmap Index Scan/);
      expect(text, text).not.toMatch(/Seq Scan/);
    }
    // The read rule ORs both owner columns: both indexes are used.
    const read = await plan('read');
    expect(read).toMatch(new RegExp(`Bitmap Index Scan on \\S*${columnNameForField(OWNER_ID)}\\S*_idx`));
    expect(read).toMatch(new RegExp(`Bitmap Index Scan on \\S*${columnNameForField('urn:svc:edge:todo-user')}\\S*_idx`));
  });
});
