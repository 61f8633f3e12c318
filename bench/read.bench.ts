// Read-path benchmark: `npx tsx bench/read.bench.ts` (optional: seconds per measurement as argv[2]).
// 2,000 to-dos over 50 users on PGlite, and on PostgreSQL when it answers. Compares the generated
// one-statement reads (JSON built by PostgreSQL, passed through as text) with a hand-written
// baseline measured in the same run: a plain `select ... limit 20` plus a count, then one query per
// row for its user and that user's to-do ids (the naive N+1), serialised in JS. Prints req/s and
// the ratio; nothing is asserted.
import { sql } from 'kysely';
import type { CompiledApp } from '../src/runtime/compiled-app.ts';
import { getRecordJson, listRecordsJson, type ReadContext } from '../src/runtime/data/read.ts';
import type { Db } from '../src/storage/db.ts';
import { ident } from '../src/storage/sql.ts';
import { availableDrivers, createTestDatabase } from '../test/support/databases.ts';
import { createTables, seed, todoApp, TODO, USER } from '../test/runtime/fixture.ts';

const SECONDS = Number(process.argv[2] ?? 2);

async function rate(concurrency: number, work: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 50; i++) await work(i); // warm-up
  const end = performance.now() + SECONDS * 1000;
  let done = 0;
  const worker = async () => {
    while (performance.now() < end) await work(done++);
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return (done / (performance.now() - start)) * 1000;
}

/** The naive way: rows first, then the related rows one query at a time. */
function naive(db: Db, app: CompiledApp) {
  const todo = app.modelsById.get(TODO)!;
  const user = app.modelsById.get(USER)!;
  const c = (name: string, model = todo) => ident(model.fieldsByName.get(name)!.column!);
  const todoTable = ident(app.schema, todo.table);
  const userTable = ident(app.schema, user.table);
  type Row = Record<string, unknown>;
  const expandUser = async (id: string) => {
    const u = (await sql<Row>`select id, ${c('name', user)} as name, ${c('email', user)} as email from ${userTable} where id = ${id}`.execute(db.kysely)).rows[0];
    const todos = await sql<{ id: string }>`select id from ${todoTable} where ${c('user')} = ${id} order by id`.execute(db.kysely);
    return { ...u, todos: todos.rows.map((r) => r.id) };
  };
  const shape = (row: Row) => ({
    id: row.id,
    title: row.title,
    description: row.description,
    deadline: row.deadline instanceof Date ? row.deadline.toISOString() : row.deadline,
    status: row.status,
  });
  const columns = sql`id, ${c('title')} as title, ${c('description')} as description, ${c('deadline')} as deadline, ${c('status')} as status, ${c('user')} as "user"`;
  return {
    list: async (owner: string) => {
      const rows = (await sql<Row>`select ${columns} from ${todoTable} where ${c('user')} = ${owner} order by id limit 20`.execute(db.kysely)).rows;
      const total = (await sql<{ n: number }>`select count(*) as n from ${todoTable} where ${c('user')} = ${owner}`.execute(db.kysely)).rows[0].n;
      const items = [];
      for (const row of rows) items.push({ ...shape(row), user: await expandUser(row.user as string) });
      return JSON.stringify({ items, total, offset: 0 });
    },
    point: async (id: string, owner: string) => {
      const row = (await sql<Row>`select ${columns} from ${todoTable} where id = ${id} and ${c('user')} = ${owner}`.execute(db.kysely)).rows[0];
      return JSON.stringify({ ...shape(row), user: await expandUser(row.user as string) });
    },
  };
}

async function main(): Promise<void> {
  for (const driver of await availableDrivers()) {
    const database = await createTestDatabase(driver);
    try {
      const db = database.db;
      const app = todoApp();
      await createTables(db, app);
      const data = await seed(db, app, 50, () => 40);
      await sql`analyze`.execute(db.kysely);
      const todo = app.modelsById.get(TODO)!;
      const ctxOf = (i: number): ReadContext => ({ auth: data.users[i % 50], operation: 'read', now: new Date() });
      const todoOf = (i: number) => data.todos[(i * 41) % data.todos.length];
      const base = naive(db, app);
      const concurrency = driver === 'postgres' ? 8 : 1;
      const results = {
        list: await rate(concurrency, (i) => listRecordsJson(db, app, todo, { ctx: ctxOf(i), limit: 20 })),
        listBaseline: await rate(concurrency, (i) => base.list(data.users[i % 50].id)),
        point: await rate(concurrency, (i) => getRecordJson(db, app, todo, todoOf(i).id, { ...ctxOf(0), auth: { id: todoOf(i).user } })),
        pointBaseline: await rate(concurrency, (i) => base.point(todoOf(i).id, todoOf(i).user)),
      };
      const f = (n: number) => n.toFixed(0).padStart(6);
      console.log(`${driver} (2,000 to-dos, 50 users, ${concurrency} in flight, ${SECONDS}s each)`);
      console.log(`  list of 20 + embedded user: ${f(results.list)} req/s   naive N+1: ${f(results.listBaseline)} req/s   ratio ${(results.list / results.listBaseline).toFixed(2)}x`);
      console.log(`  point read + embedded user: ${f(results.point)} req/s   naive:     ${f(results.pointBaseline)} req/s   ratio ${(results.point / results.pointBaseline).toFixed(2)}x`);
    } finally {
      // Let the pool's connections finish closing before the database is dropped under them.
      await database.db.close();
      await new Promise((resolve) => setTimeout(resolve, 200));
      await database.drop();
    }
  }
}

await main();
