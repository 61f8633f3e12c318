// `npm run bench:wide` (optional: seconds per measurement as argv[2]): reads of a model wider than
// one `json_build_object` call takes (300 fields: 50-pair chunks joined as text,
// src/runtime/data/json-object.ts), on PGlite and on PostgreSQL when it answers, against a raw
// statement giving the same JSON (`row_to_json` of the same values: it takes any number of columns;
// checked equal once, parsed, before measuring) in the same run. A list's total is kept between
// reads while the table does not change (count-cache.ts): the raw list writes it as a constant. Also the to-do model the same way,
// whose statement is one `json_build_object` call as before (test/runtime/json-object.test.ts
// holds its text unchanged). Prints reads/s and the ratio; asserts nothing.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { sql, type RawBuilder } from 'kysely';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { compileApp, type CompiledApp, type CompiledModel } from '../../src/runtime/compiled-app.ts';
import { getRecordJson, listRecordsJson, type ReadContext } from '../../src/runtime/data/read.ts';
import { ident } from '../../src/storage/sql.ts';
import { availableDrivers, createTestDatabase } from '../../test/support/databases.ts';
import { todoScode } from '../../test/support/examples.ts';
import { createTables, insert, seed, TODO } from '../../test/runtime/fixture.ts';

const SECONDS = Number(process.argv[2] ?? 2);
const WIDTH = 300;
const ROWS = 1000;
const TYPES = ['p_TEXT', 'p_NUMBER', 'p_BOOLEAN', 'p_DATE', 'p_DATE_TIME', 'p_STAR_RATING', 'p_TEXT[]'] as const;
const ISO_UTC = sql.raw(`'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`);

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

/** The to-do example plus `Wide`, WIDTH fields of the types above in turn. */
function wideApp(): CompiledApp {
  const scode = todoScode() as unknown as AppDefinition;
  scode.models.push({
    id: 'urn:svc:model:wide',
    name: 'Wide',
    accessControl: { rules: [] },
    fields: Array.from({ length: WIDTH }, (_, i) => {
      const kind = TYPES[i % TYPES.length];
      return { id: `urn:svc:edge:wide-${i}`, name: `f${(i * 37) % 1000}`, relationshipOwner: true, min: 0, max: kind.endsWith('[]') ? null : 1, to: kind.replace('[]', ''), accessControl: { rules: [] } };
    }),
  });
  return compileApp(randomUUID(), '1.0.1', scode);
}

function valueOf(kind: (typeof TYPES)[number], n: number): unknown {
  switch (kind) {
    case 'p_TEXT': return `text ${n}`;
    case 'p_NUMBER': return n + 0.25;
    case 'p_BOOLEAN': return n % 2 === 0;
    case 'p_DATE': return `2024-0${(n % 9) + 1}-1${n % 10}`;
    case 'p_DATE_TIME': return new Date(Date.UTC(2025, 0, 1 + (n % 28), 10, n % 60)).toISOString();
    case 'p_STAR_RATING': return n % 6;
    case 'p_TEXT[]': return [`a${n}`, `b${n}`];
  }
}

/** The raw statement: the same members and values through `row_to_json` (no argument limit). */
function rawRecord(app: CompiledApp, model: CompiledModel): RawBuilder<unknown> {
  const columns = [sql`t.id`];
  for (const field of model.fields) {
    if (!field.column) continue;
    const column = sql`t.${ident(field.column)}`;
    const value = field.to === 'p_DATE_TIME' ? sql`to_char(${column} at time zone 'UTC', ${ISO_UTC})` : field.many ? sql`coalesce(to_json(${column}), '[]'::json)` : column;
    columns.push(sql`${value} as ${ident(field.name)}`);
  }
  return sql`select ${sql.join(columns)} from ${ident(app.schema, model.table)} t`;
}

async function compare(label: string, ours: (i: number) => Promise<string | undefined>, raw: (i: number) => Promise<string>, concurrency: number): Promise<void> {
  let first: string | undefined;
  try {
    first = await ours(0);
  } catch (error) {
    // Before chunking: SQLSTATE 54023, more than 100 arguments to json_build_object.
    console.log(`  ${label.padEnd(34)} fails: ${(error as Error).message}`);
    return;
  }
  if (!isDeepStrictEqual(JSON.parse(first!), JSON.parse(await raw(0)))) throw new Error(`${label}: the raw statement does not give the same JSON`);
  const mine = await rate(concurrency, ours);
  const base = await rate(concurrency, raw);
  const f = (n: number) => n.toFixed(0).padStart(6);
  console.log(`  ${label.padEnd(34)} ${f(mine)} reads/s   raw row_to_json: ${f(base)} reads/s   ratio ${(mine / base).toFixed(2)}x`);
}

async function main(): Promise<void> {
  for (const driver of await availableDrivers()) {
    const database = await createTestDatabase(driver);
    try {
      const db = database.db;
      const app = wideApp();
      await createTables(db, app);
      const wide = app.modelsById.get('urn:svc:model:wide')!;
      const todo = app.modelsById.get(TODO)!;
      const ids: string[] = [];
      for (let r = 0; r < ROWS; r++) {
        ids.push(await insert(db, app, wide, Object.fromEntries(wide.fields.map((field, i) => [field.name, valueOf(TYPES[i % TYPES.length], r + i)]))));
      }
      const data = await seed(db, app, 50, () => 40);
      await sql`analyze`.execute(db.kysely);
      const admin: ReadContext = { auth: null, operation: 'read', now: new Date(), bypassRules: true };
      const concurrency = driver === 'postgres' ? 8 : 1;
      const one = (model: CompiledModel) => rawRecord(app, model);
      const text = async (query: RawBuilder<unknown>) => (await sql<{ body: string }>`${query}`.execute(db.kysely)).rows[0].body;
      const idOf = (i: number) => ids[(i * 41) % ids.length];
      const todoOf = (i: number) => data.todos[(i * 41) % data.todos.length].id;
      console.log(`${driver} (Wide: ${WIDTH} fields × ${ROWS} rows; to-do: 2,000 rows; administrator; ${concurrency} in flight, ${SECONDS}s each)`);
      await compare(`Wide: point read (${WIDTH} members)`, (i) => getRecordJson(db, app, wide, idOf(i), admin),
        (i) => text(sql`select row_to_json(r)::text as body from (${one(wide)} where t.id = ${idOf(i)}) r`), concurrency);
      await compare('Wide: list of 20, total', (i) => listRecordsJson(db, app, wide, { ctx: admin, limit: 20, offset: (i * 20) % (ROWS - 20), sort: 'id' }),
        (i) => text(sql`select json_build_object('items', (select coalesce(json_agg(row_to_json(r) order by r.id), '[]'::json) from (${one(wide)} order by t.id limit 20 offset ${(i * 20) % (ROWS - 20)}) r),
          'total', ${ROWS}::bigint, 'offset', ${(i * 20) % (ROWS - 20)}::bigint)::text as body`), concurrency);
      // The to-do without its relationship expanded (fields=): the same members on both sides.
      const todoFields = 'title,description,deadline,status';
      const todoRaw = sql`select t.id, t.${ident(todo.fieldsByName.get('title')!.column!)} as title, t.${ident(todo.fieldsByName.get('description')!.column!)} as description,
        to_char(t.${ident(todo.fieldsByName.get('deadline')!.column!)} at time zone 'UTC', ${ISO_UTC}) as deadline, t.${ident(todo.fieldsByName.get('status')!.column!)} as status
        from ${ident(app.schema, todo.table)} t`;
      await compare('to-do: point read (5 members)', (i) => getRecordJson(db, app, todo, todoOf(i), admin, todoFields),
        (i) => text(sql`select row_to_json(r)::text as body from (${todoRaw} where t.id = ${todoOf(i)}) r`), concurrency);
      await compare('to-do: list of 20, total', (i) => listRecordsJson(db, app, todo, { ctx: admin, limit: 20, offset: (i * 20) % 1980, sort: 'id', fields: todoFields }),
        (i) => text(sql`select json_build_object('items', (select coalesce(json_agg(row_to_json(r) order by r.id), '[]'::json) from (${todoRaw} order by t.id limit 20 offset ${(i * 20) % 1980}) r),
          'total', 2000::bigint, 'offset', ${(i * 20) % 1980}::bigint)::text as body`), concurrency);
    } finally {
      await database.db.close();
      await new Promise((resolve) => setTimeout(resolve, 200));
      await database.drop();
    }
  }
}

await main();
