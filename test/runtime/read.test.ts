import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kysely, PGliteDialect, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { Problem } from '../../src/errors.ts';
import type { CompiledApp } from '../../src/runtime/compiled-app.ts';
import { getRecord, getRecordJson, listRecords, listRecordsJson, type ReadContext } from '../../src/runtime/data/read.ts';
import type { Executor } from '../../src/storage/db.ts';
import { ident } from '../../src/storage/sql.ts';
import { availableDrivers, createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { createTables, modelDef, NOW, seed, todoApp, TODO, USER, type Seeded } from './fixture.ts';

const TODO_KEYS = ['id', 'title', 'description', 'deadline', 'status', 'user'];
const USER_KEYS = ['id', 'name', 'email', 'todos'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function as(user: { id: string } | null): ReadContext {
  return { auth: user ? { ...user } : null, operation: 'read', now: NOW };
}

async function problemOf(promise: Promise<unknown>): Promise<Problem> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Problem) return error;
    throw error;
  }
  throw new Error('expected a Problem');
}

describe.each(await availableDrivers())('reads on %s', (driver) => {
  let database: TestDatabase;
  let app: CompiledApp;
  let data: Seeded;
  // ToDo readable by everyone, User only by itself; a computed label in SQL and one left to CEL.
  let open: CompiledApp;
  let openData: Seeded;

  beforeAll(async () => {
    database = await createTestDatabase(driver);
    app = todoApp();
    await createTables(database.db, app);
    data = await seed(database.db, app, 3, (i) => [7, 5, 0][i]);
    open = todoApp((scode) => {
      const todo = modelDef(scode, TODO);
      todo.accessControl = { rules: [{ access: 'allow', criteria: 'true' }] };
      const computed = (id: string, name: string, computed: string) => ({
        id, name, computed, relationshipOwner: true, min: 0, max: 1, to: 'p_TEXT', accessControl: { rules: [] },
      });
      todo.fields.push(computed('urn:svc:edge:todo-label', 'label', "record.title + ' (' + record.status + ')'"));
      todo.fields.push(computed('urn:svc:edge:todo-length', 'length', "'#' + string(record.title.size())"));
      const plain = (id: string, name: string, to: string, max: number | null = 1) => ({ id, name, relationshipOwner: true, min: 0, max, to, accessControl: { rules: [] } });
      todo.fields.push(plain('urn:svc:edge:todo-day', 'day', 'p_DATE'), plain('urn:svc:edge:todo-at', 'at', 'p_TIME'));
      todo.fields.push(plain('urn:svc:edge:todo-place', 'place', 'p_ADDRESS'), plain('urn:svc:edge:todo-tags', 'tags', 'p_TEXT', null));
    });
    await createTables(database.db, open);
    openData = await seed(database.db, open, 2, () => 2);
    const m = open.modelsById.get(TODO)!;
    const column = (name: string) => ident(m.fieldsByName.get(name)!.column!);
    await sql`update ${ident(open.schema, m.table)} set ${column('day')} = '2024-07-01', ${column('at')} = '09:30:00',
      ${column('place')} = '{"city": "Berlin"}', ${column('tags')} = array['a', 'b'] where id = ${openData.todos[0].id}`.execute(database.db.kysely);
  });
  afterAll(() => database?.drop());

  const db = () => database.db;
  const todo = () => app.modelsById.get(TODO)!;
  const user = () => app.modelsById.get(USER)!;
  const owned = (i: number) => data.todos.filter((t) => t.user === data.users[i].id);

  it('lists to-dos with the embedded user, whose todos are ids (endpoint 11)', async () => {
    const owner = data.users[0];
    const page = await listRecords(db(), app, todo(), { ctx: as(owner) });
    expect(page.total).toBe(7);
    expect(page.offset).toBe(0);
    expect(page.items).toHaveLength(7);
    expect(Object.keys(page)).toEqual(['items', 'total', 'offset']);
    const first = owned(0)[0];
    expect(page.items[0]).toEqual({
      id: first.id,
      title: first.title,
      description: first.description,
      deadline: first.deadline,
      status: first.status,
      user: { id: owner.id, name: owner.name, email: owner.email, todos: owned(0).map((t) => t.id).sort() },
    });
    for (const item of page.items) {
      expect(Object.keys(item)).toEqual(TODO_KEYS);
      const embedded = item.user as Record<string, unknown>;
      expect(Object.keys(embedded)).toEqual(USER_KEYS);
      expect((embedded.todos as unknown[]).every((id) => typeof id === 'string' && UUID.test(id))).toBe(true);
    }
    // The text is what PostgreSQL built; the same page.
    expect(JSON.parse(await listRecordsJson(db(), app, todo(), { ctx: as(owner) }))).toEqual(page);
  });

  it('reads one to-do (endpoint 12) and one user whose todos carry user as an id (endpoint 13)', async () => {
    const owner = data.users[0];
    const one = owned(0)[1];
    const record = await getRecord(db(), app, todo(), one.id, as(owner));
    expect(record).toEqual({ ...one, user: { id: owner.id, name: owner.name, email: owner.email, todos: owned(0).map((t) => t.id).sort() } });
    const me = await getRecord(db(), app, user(), owner.id, as(owner));
    expect(Object.keys(me!)).toEqual(USER_KEYS);
    expect(me!.todos).toEqual(owned(0).sort((a, b) => a.id.localeCompare(b.id)).map((t) => ({ ...t, user: owner.id })));
    expect(JSON.parse((await getRecordJson(db(), app, user(), owner.id, as(owner)))!)).toEqual(me);
    // A user without to-dos has an empty array, never null.
    const loner = data.users[2];
    expect(await getRecord(db(), app, user(), loner.id, as(loner))).toEqual({ ...loner, todos: [] });
  });

  it('shows the owner only their own to-dos; others see none', async () => {
    const bob = await listRecords(db(), app, todo(), { ctx: as(data.users[1]) });
    expect(bob.total).toBe(5);
    expect(bob.items.map((t) => t.id).sort()).toEqual(owned(1).map((t) => t.id).sort());
    const cy = await listRecords(db(), app, todo(), { ctx: as(data.users[2]) });
    expect(cy).toEqual({ items: [], total: 0, offset: 0 });
    expect(await getRecord(db(), app, todo(), owned(0)[0].id, as(data.users[1]))).toBeUndefined();
    expect(await getRecord(db(), app, user(), data.users[0].id, as(data.users[1]))).toBeUndefined();
    expect(await getRecord(db(), app, todo(), '01900000-0000-7000-8000-00000000dead', as(data.users[0]))).toBeUndefined();
  });

  it('keeps the statement text stable across callers: only parameters change', async () => {
    const texts: string[] = [];
    const dialect = database.db.pglite ? new PGliteDialect({ pglite: database.db.pglite }) : new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url! }) });
    const logging = new Kysely<Record<string, never>>({ dialect, log: (e) => void (e.level === 'query' && texts.push(e.query.sql)) });
    try {
      for (const i of [0, 1]) {
        await listRecords(logging as unknown as Executor, app, todo(), { ctx: as(data.users[i]), sort: '-deadline', filter: "record.status == 'open'", offset: i });
        await getRecord(logging as unknown as Executor, app, todo(), owned(i)[0].id, as(data.users[i]));
      }
    } finally {
      // The PGlite instance belongs to the test database: only a pool of our own is closed.
      if (!database.db.pglite) await logging.destroy();
    }
    expect(texts).toHaveLength(4);
    expect(texts[2]).toBe(texts[0]);
    expect(texts[3]).toBe(texts[1]);
  });

  it('answers an anonymous caller without a query', async () => {
    const refuse = new Proxy({}, { get: () => { throw new Error('no query expected'); } }) as Executor;
    expect(await listRecords(refuse, app, todo(), { ctx: as(null) })).toEqual({ items: [], total: 0, offset: 0 });
    expect(await getRecord(refuse, app, todo(), owned(0)[0].id, as(null))).toBeUndefined();
  });

  it('lets administrators bypass the rules', async () => {
    const page = await listRecords(db(), app, todo(), { ctx: { ...as(null), bypassRules: true }, limit: 1000 });
    expect(page.total).toBe(12);
  });

  it('filters with CEL: status and deadline before now', async () => {
    const owner = data.users[0];
    const page = await listRecords(db(), app, todo(), { ctx: as(owner), filter: "record.status == 'open' && record.deadline < now" });
    const wanted = owned(0).filter((t) => t.status === 'open' && t.deadline !== null && t.deadline < NOW.toISOString());
    expect(page.total).toBe(wanted.length);
    expect(page.items.map((t) => t.id).sort()).toEqual(wanted.map((t) => t.id).sort());
    const done = await listRecords(db(), app, todo(), { ctx: as(owner), filter: "record.status == 'done'" });
    expect(done.items.every((t) => t.status === 'done')).toBe(true);
  });

  it('sorts descending with id as tiebreaker; pages are stable and totals right', async () => {
    const ctx = { ...as(null), bypassRules: true };
    const all = await listRecords(db(), app, todo(), { ctx, sort: '-status,title', limit: 1000 });
    const expected = [...data.todos].sort((a, b) => b.status.localeCompare(a.status) || a.title.localeCompare(b.title));
    expect(all.items.map((t) => t.id)).toEqual(expected.map((t) => t.id));
    const paged: string[] = [];
    for (let offset = 0; offset < 12; offset += 5) {
      const page = await listRecords(db(), app, todo(), { ctx, sort: '-status,title', limit: 5, offset });
      expect(page.total).toBe(12);
      expect(page.offset).toBe(offset);
      paged.push(...page.items.map((t) => t.id));
    }
    expect(paged).toEqual(all.items.map((t) => t.id));
    const byDeadline = await listRecords(db(), app, todo(), { ctx, sort: '-deadline', limit: 1000 });
    const deadlines = byDeadline.items.map((t) => t.deadline as string | null);
    expect(deadlines.slice(0, 2)).toEqual([null, null]); // PostgreSQL: nulls first when descending
    expect(deadlines.slice(2)).toEqual([...deadlines.slice(2)].sort().reverse());
    const byCreation = await listRecords(db(), app, todo(), { ctx, sort: 'createdAt', limit: 3 });
    expect(byCreation.items).toHaveLength(3);
  });

  it('refuses unknown sort fields and bad paging with 400s naming the parameter', async () => {
    const ctx = as(data.users[0]);
    for (const sort of ['nope', 'user', '-title,title', 'title;drop table x']) {
      const problem = await problemOf(listRecords(db(), app, todo(), { ctx, sort }));
      expect([problem.status, problem.errors[0].path]).toEqual([400, '/sort']);
    }
    expect((await problemOf(listRecords(db(), app, todo(), { ctx, limit: 1001 }))).errors[0].path).toBe('/limit');
    expect((await problemOf(listRecords(db(), app, todo(), { ctx, offset: -1 }))).errors[0].path).toBe('/offset');
  });

  it('keeps SQL injection in filter values as parameters, or refuses it', async () => {
    const ctx = { ...as(null), bypassRules: true };
    const table = `${app.schema}.${todo().table}`;
    const literal = await listRecords(db(), app, todo(), { ctx, filter: `record.title == "x'; drop table ${table}; --"` });
    expect(literal).toEqual({ items: [], total: 0, offset: 0 });
    const like = await listRecords(db(), app, todo(), { ctx, filter: `record.title.contains("%' or 1=1 --")` });
    expect(like.total).toBe(0);
    // A value CEL cannot build is an error: no match.
    expect((await listRecords(db(), app, todo(), { ctx, filter: "record.deadline < timestamp('not a date')" })).total).toBe(0);
    for (const filter of [`record.title == 'x'; drop table ${table}`, 'record.title == 1 || true) --']) {
      const problem = await problemOf(listRecords(db(), app, todo(), { ctx, filter }));
      expect([problem.status, problem.errors[0].path]).toEqual([400, '/filter']);
    }
    const exists = await sql<{ n: number }>`select count(*)::int as n from ${ident(app.schema, todo().table)}`.execute(db().kysely);
    expect(exists.rows[0].n).toBe(12);
  });

  it('keeps an embedded record the caller may not read as an id', async () => {
    const model = open.modelsById.get(TODO)!;
    const [ann, bob] = openData.users;
    const page = await listRecords(db(), open, model, { ctx: as(ann), limit: 100 });
    expect(page.total).toBe(4);
    for (const item of page.items) {
      if (item.id === openData.todos[0].id || item.id === openData.todos[1].id) expect((item.user as { id: string }).id).toBe(ann.id);
      else expect(item.user).toBe(bob.id);
    }
  });

  it('computes fields in SQL and, when they do not translate, with CEL after the fetch', async () => {
    const model = open.modelsById.get(TODO)!;
    const first = openData.todos[0];
    const record = await getRecord(db(), open, model, first.id, as(null));
    expect(record).toMatchObject({ label: `${first.title} (${first.status})`, length: `#${first.title.length}` });
    expect(record).toMatchObject({ day: '2024-07-01', at: '09:30:00', place: { city: 'Berlin' }, tags: ['a', 'b'] });
    expect(await getRecord(db(), open, model, openData.todos[1].id, as(null))).toMatchObject({ day: null, at: null, place: null, tags: [] });
    const bad = await problemOf(listRecords(db(), open, model, { ctx: as(null), filter: "record.day < 'not a date'" }));
    expect([bad.status, bad.errors[0].path]).toEqual([400, '/filter']);
    expect((await listRecords(db(), open, model, { ctx: as(null), filter: "record.day < '2024-08-01' && 'b' in record.tags" })).total).toBe(1);
    const page = await listRecords(db(), open, model, { ctx: as(null), filter: "record.label == 'todo 0000 (open)'" });
    expect(page.items.map((t) => [t.id, t.label, t.length])).toEqual([[first.id, 'todo 0000 (open)', '#9']]);
    const text = JSON.parse(await listRecordsJson(db(), open, model, { ctx: as(null), limit: 1 }));
    expect(text.items[0].length).toBe('#9');
  });
});
