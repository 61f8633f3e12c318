// The schema compiler against real databases: creation, migrations, dry runs, refusals, purge.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnNameForField, joinTableName, schemaNameForApp, tableNameForModel } from '../../src/definition/naming.ts';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { Problem } from '../../src/errors.ts';
import { ident } from '../../src/storage/sql.ts';
import { applyMigration, planMigration, planPurge } from '../../src/compiler/schema/index.ts';
import { availableDrivers, createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { field, model, newAppId, primitive, TAG, todo, todoWithTags, TODO, USER } from './fixtures/definitions.ts';
import { columnsOf, constraintsOf, indexesOf, tablesOf } from './fixtures/introspect.ts';

const col = columnNameForField;
const TITLE = 'urn:svc:edge:todo-title';
const DESCRIPTION = 'urn:svc:edge:todo-description';
const STATUS = 'urn:svc:edge:todo-status';
const OWNER = 'urn:svc:edge:todo-user';

async function rejection(promise: Promise<unknown>): Promise<Problem> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Problem) return error;
    throw error;
  }
  throw new Error('expected a Problem');
}

describe.each(await availableDrivers())('schema compiler on %s', (driver) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(driver);
  });
  afterAll(() => database?.drop());

  /** A fresh application: its schema created from `def`. */
  async function deploy(def: AppDefinition): Promise<{ appId: string; schema: string }> {
    const appId = newAppId();
    await applyMigration(database.db, planMigration(null, def, appId));
    return { appId, schema: schemaNameForApp(appId) };
  }

  async function addUser(schema: string): Promise<string> {
    const { rows } = await sql<{ id: string }>`insert into ${ident(schema, tableNameForModel(USER))}
      (${ident(col('urn:svc:edge:user-name'))}, ${ident(col('urn:svc:edge:user-email'))}) values ('Ada', 'ada@example.com') returning id`.execute(database.db.kysely);
    return rows[0].id;
  }

  async function addTodo(schema: string, user: string, title: string, extra: Record<string, unknown> = {}): Promise<string> {
    const names = [TITLE, OWNER, ...Object.keys(extra)].map((id) => ident(col(id)));
    const values = [title, user, ...Object.values(extra)];
    const { rows } = await sql<{ id: string }>`insert into ${ident(schema, tableNameForModel(TODO))} (${sql.join(names)})
      values (${sql.join(values)}) returning id`.execute(database.db.kysely);
    return rows[0].id;
  }

  async function todoColumn(schema: string, fieldId: string): Promise<unknown[]> {
    const { rows } = await sql<{ v: unknown }>`select ${ident(col(fieldId))} as v from ${ident(schema, tableNameForModel(TODO))}
      order by ${ident(col(TITLE))}`.execute(database.db.kysely);
    return rows.map((r) => r.v);
  }

  it('creates the to-do example: tables, types, NOT NULL, defaults, indexed FK, CHECK', async () => {
    const { schema } = await deploy(todo());
    expect(await tablesOf(database.db, schema)).toEqual(['m_todo', 'm_user']);
    const columns = await columnsOf(database.db, schema, 'm_todo');
    const shape = (name: string) => [columns.get(name)?.data_type, columns.get(name)?.is_nullable];
    expect(shape('id')).toEqual(['uuid', 'NO']);
    expect(shape('created_at')).toEqual(['timestamp with time zone', 'NO']);
    expect(shape('updated_at')).toEqual(['timestamp with time zone', 'NO']);
    expect(shape(col(TITLE))).toEqual(['text', 'NO']);
    expect(shape(col(DESCRIPTION))).toEqual(['text', 'YES']);
    expect(shape(col('urn:svc:edge:todo-deadline'))).toEqual(['timestamp with time zone', 'YES']);
    expect(shape(col(STATUS))).toEqual(['text', 'NO']);
    expect(shape(col(OWNER))).toEqual(['uuid', 'NO']);
    expect(columns.get(col(STATUS))?.column_default).toMatch(/^'open'/);
    expect(columns.has(col('urn:svc:edge:user-todos'))).toBe(false);

    const constraints = await constraintsOf(database.db, schema, 'm_todo');
    const fk = constraints.find((c) => c.type === 'f');
    expect(fk?.definition).toBe(`FOREIGN KEY (${col(OWNER)}) REFERENCES ${schema}.m_user(id) ON DELETE CASCADE`);
    expect(constraints.find((c) => c.type === 'c')?.definition).toContain("'open'::text, 'done'::text");
    expect((await indexesOf(database.db, schema, 'm_todo')).some((i) => i.endsWith(`(${col(OWNER)})`))).toBe(true);

    const user = await addUser(schema);
    await addTodo(schema, user, 'write tests');
    expect(await todoColumn(schema, STATUS)).toEqual(['open']);
    await expect(addTodo(schema, user, 'bad', { [STATUS]: 'someday' })).rejects.toThrow(/check constraint/);
    await expect(addTodo(schema, '00000000-0000-4000-8000-000000000000', 'orphan')).rejects.toThrow(/foreign key/);
    // Deleting the (required) owner takes their to-dos along.
    await sql`delete from ${ident(schema, 'm_user')}`.execute(database.db.kysely);
    expect(await todoColumn(schema, TITLE)).toEqual([]);
  });

  it('gives a many-to-many relationship a join table with a composite key', async () => {
    const { schema } = await deploy(todoWithTags());
    const join = joinTableName('urn:svc:edge:todo-tags', 'urn:svc:edge:tag-todos');
    expect(await tablesOf(database.db, schema)).toEqual([join, 'm_tag', 'm_todo', 'm_user'].sort());
    const constraints = await constraintsOf(database.db, schema, join);
    expect(constraints.filter((c) => c.type === 'p').map((c) => c.definition)).toEqual([
      `PRIMARY KEY (${col('urn:svc:edge:tag-todos')}, ${col('urn:svc:edge:todo-tags')})`,
    ]);
    expect(constraints.filter((c) => c.type === 'f')).toHaveLength(2);
    const user = await addUser(schema);
    const todoId = await addTodo(schema, user, 'tagged');
    const { rows } = await sql<{ id: string }>`insert into ${ident(schema, 'm_tag')} (${ident(col('urn:svc:edge:tag-label'))})
      values ('home') returning id`.execute(database.db.kysely);
    const pair = sql`insert into ${ident(schema, join)} (${ident(col('urn:svc:edge:tag-todos'))}, ${ident(col('urn:svc:edge:todo-tags'))}) values (${rows[0].id}, ${todoId})`;
    await pair.execute(database.db.kysely);
    await expect(pair.execute(database.db.kysely)).rejects.toThrow(/duplicate key/);
    await sql`delete from ${ident(schema, 'm_tag')}`.execute(database.db.kysely);
    const left = await sql<{ n: number }>`select count(*)::int as n from ${ident(schema, join)}`.execute(database.db.kysely);
    expect(left.rows[0].n).toBe(0);
  });

  it('adds a column for a new field and keeps the data; a dry run changes nothing', async () => {
    const { appId, schema } = await deploy(todo());
    const user = await addUser(schema);
    await addTodo(schema, user, 'kept');
    const next = todo();
    model(next, TODO).fields.push(primitive('urn:svc:edge:todo-priority', 'priority', 'p_STAR_RATING', { min: 1, defaultValue: 3 }));
    const plan = planMigration(todo(), next, appId);
    expect(await applyMigration(database.db, plan, { dryRun: true })).toEqual({ executed: plan.steps.length, dryRun: true });
    expect((await columnsOf(database.db, schema, 'm_todo')).has(col('urn:svc:edge:todo-priority'))).toBe(false);
    await applyMigration(database.db, plan);
    expect(await todoColumn(schema, TITLE)).toEqual(['kept']);
    expect(await todoColumn(schema, 'urn:svc:edge:todo-priority')).toEqual([3]);
    await expect(addTodo(schema, user, 'too good', { 'urn:svc:edge:todo-priority': 6 })).rejects.toThrow(/check constraint/);
  });

  it('keeps the column of a removed field (with its data) and lets new rows leave it empty', async () => {
    const { appId, schema } = await deploy(todo());
    const user = await addUser(schema);
    await addTodo(schema, user, 'first');
    const next = todo();
    model(next, TODO).fields = model(next, TODO).fields.filter((f) => f.id !== TITLE);
    const plan = planMigration(todo(), next, appId);
    expect(plan.retained.map((r) => r.column)).toEqual([col(TITLE)]);
    await applyMigration(database.db, plan);
    expect((await columnsOf(database.db, schema, 'm_todo')).get(col(TITLE))?.is_nullable).toBe('YES');
    await sql`insert into ${ident(schema, 'm_todo')} (${ident(col(OWNER))}) values (${user})`.execute(database.db.kysely);
    expect(await todoColumn(schema, TITLE)).toEqual(['first', null]);

    // A rename is no statement at all.
    const renamed = structuredClone(next);
    model(renamed, TODO).name = 'Task';
    const rename = planMigration(next, renamed, appId);
    expect(await applyMigration(database.db, rename)).toEqual({ executed: 0, dryRun: false });
  });

  it('requires a value (min 0 → 1) after backfilling the default; without a default and with NULLs it refuses', async () => {
    const { appId, schema } = await deploy(todo());
    const user = await addUser(schema);
    await addTodo(schema, user, 'a');
    await addTodo(schema, user, 'b', { [DESCRIPTION]: 'has one' });

    const noDefault = todo();
    field(noDefault, DESCRIPTION).min = 1;
    const refused = await rejection(applyMigration(database.db, planMigration(todo(), noDefault, appId), { dryRun: true }));
    expect(refused.status).toBe(409);
    expect(refused.errors[0]).toEqual({ path: '/models/0/fields/1/min', message: expect.stringContaining('null') });
    expect((await columnsOf(database.db, schema, 'm_todo')).get(col(DESCRIPTION))?.is_nullable).toBe('YES');

    const withDefault = todo();
    Object.assign(field(withDefault, DESCRIPTION), { min: 1, defaultValue: 'none yet' });
    await applyMigration(database.db, planMigration(todo(), withDefault, appId));
    expect(await todoColumn(schema, DESCRIPTION)).toEqual(['none yet', 'has one']);
    expect((await columnsOf(database.db, schema, 'm_todo')).get(col(DESCRIPTION))?.is_nullable).toBe('NO');
  });

  it('replaces the enum check; a new enum that existing rows break is refused', async () => {
    const { appId, schema } = await deploy(todo());
    const user = await addUser(schema);
    await addTodo(schema, user, 'x', { [STATUS]: 'done' });
    const wider = todo();
    field(wider, STATUS).enum = ['open', 'done', 'archived'];
    await applyMigration(database.db, planMigration(todo(), wider, appId));
    await addTodo(schema, user, 'y', { [STATUS]: 'archived' });
    const narrower = todo();
    field(narrower, STATUS).enum = ['open'];
    const refused = await rejection(applyMigration(database.db, planMigration(wider, narrower, appId)));
    expect(refused.errors[0].path).toBe('/models/0/fields/3/enum');
    expect(await todoColumn(schema, STATUS)).toEqual(['done', 'archived']);
  });

  it('converts text to number when every row holds a number, and refuses (409, nothing changed) when one does not', async () => {
    const withEstimate = todo();
    model(withEstimate, TODO).fields.push(primitive('urn:svc:edge:todo-estimate', 'estimate', 'p_TEXT'));
    const asNumber = structuredClone(withEstimate);
    field(asNumber, 'urn:svc:edge:todo-estimate').to = 'p_NUMBER';
    const ESTIMATE = 'urn:svc:edge:todo-estimate';

    const good = await deploy(withEstimate);
    const user = await addUser(good.schema);
    await addTodo(good.schema, user, 'a', { [ESTIMATE]: ' 1.5 ' });
    await addTodo(good.schema, user, 'b', { [ESTIMATE]: '2' });
    await addTodo(good.schema, user, 'c');
    await applyMigration(database.db, planMigration(withEstimate, asNumber, good.appId));
    expect((await columnsOf(database.db, good.schema, 'm_todo')).get(col(ESTIMATE))?.data_type).toBe('double precision');
    expect(await todoColumn(good.schema, ESTIMATE)).toEqual([1.5, 2, null]);

    const bad = await deploy(withEstimate);
    const owner = await addUser(bad.schema);
    await addTodo(bad.schema, owner, 'a', { [ESTIMATE]: '3' });
    await addTodo(bad.schema, owner, 'b', { [ESTIMATE]: 'abc' });
    const plan = planMigration(withEstimate, asNumber, bad.appId);
    for (const dryRun of [true, false]) {
      const refused = await rejection(applyMigration(database.db, plan, { dryRun }));
      expect(refused.status).toBe(409);
      expect(refused.errors).toEqual([{ path: '/models/0/fields/5/to', message: expect.stringMatching(/^existing rows would not convert: .*abc/) }]);
      expect(refused.message).toContain('convert ToDo.estimate from text to double precision');
    }
    expect((await columnsOf(database.db, bad.schema, 'm_todo')).get(col(ESTIMATE))?.data_type).toBe('text');
    expect(await todoColumn(bad.schema, ESTIMATE)).toEqual(['3', 'abc']);
  });

  it('purges a retained column and a retained table', async () => {
    const { appId, schema } = await deploy(todoWithTags());
    const current = todo();
    model(current, TODO).fields = model(current, TODO).fields.filter((f) => f.id !== DESCRIPTION);
    await applyMigration(database.db, planMigration(todoWithTags(), current, appId));
    expect((await columnsOf(database.db, schema, 'm_todo')).has(col(DESCRIPTION))).toBe(true);
    expect(await tablesOf(database.db, schema)).toContain('m_tag');

    const purge = planPurge(current, appId, [DESCRIPTION, TAG, 'urn:svc:edge:todo-tags'], [todoWithTags()]);
    await applyMigration(database.db, purge);
    expect((await columnsOf(database.db, schema, 'm_todo')).has(col(DESCRIPTION))).toBe(false);
    expect(await tablesOf(database.db, schema)).toEqual(['m_todo', 'm_user']);
    // Purging again finds nothing left to drop and does not fail.
    await applyMigration(database.db, purge);
  });
});
