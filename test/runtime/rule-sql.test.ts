import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { Problem } from '../../src/errors.ts';
import type { CompiledApp } from '../../src/runtime/compiled-app.ts';
import { accessCondition, fieldVisibility, filterCondition, type Condition, type RuleContext } from '../../src/runtime/data/rule-sql.ts';
import { ident } from '../../src/storage/sql.ts';
import { availableDrivers, createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { createTables, modelDef, NOW, seed, todoApp, TODO, USER, type Seeded } from './fixture.ts';
import { sqlText } from './sql-text.ts';

const ANN = { id: '01900000-0000-7000-8000-000000000001', name: 'Ann', email: 'ann@example.test', todos: [] };
const read = (auth: RuleContext['auth'] = ANN): RuleContext => ({ auth, operation: 'read', now: NOW });

function whereText(condition: Condition) {
  expect(condition.kind).toBe('where');
  return condition.kind === 'where' ? sqlText(condition.sql) : { sql: '', parameters: [] };
}

function withRules(rules: Array<{ access: 'allow' | 'deny'; criteria: string }>, defaultAccess?: 'allow' | 'deny'): CompiledApp {
  return todoApp((scode) => {
    modelDef(scode, TODO).accessControl = { rules, ...(defaultAccess ? { defaultAccess } : {}) };
  });
}

describe('accessCondition', () => {
  const app = todoApp();
  const todo = app.modelsById.get(TODO)!;
  const user = app.modelsById.get(USER)!;
  const fk = todo.fieldsByName.get('user')!.column!;

  it('is none for an anonymous caller of an owner-only model: no query needed', () => {
    expect(accessCondition(app, todo, read(null), 't')).toEqual({ kind: 'none' });
    expect(accessCondition(app, user, read(null), 't')).toEqual({ kind: 'none' });
  });

  it('folds the owner rule to one indexable comparison with the id as a parameter', () => {
    expect(whereText(accessCondition(app, todo, read(), 't'))).toEqual({ sql: `"t"."${fk}" = cast($1 as uuid)`, parameters: [ANN.id] });
    expect(whereText(accessCondition(app, user, read(), 'e1'))).toEqual({ sql: `"e1"."id" = cast($1 as uuid)`, parameters: [ANN.id] });
  });

  it('keeps the statement text stable across callers (plans can be reused)', () => {
    const bob = { ...ANN, id: '01900000-0000-7000-8000-000000000002' };
    const a = whereText(accessCondition(app, todo, read(), 't'));
    const b = whereText(accessCondition(app, todo, read(bob), 't'));
    expect(a.sql).toBe(b.sql);
    expect(b.parameters).toEqual([bob.id]);
  });

  it('applies a deny rule placed before an allow rule', () => {
    const app2 = withRules([
      { access: 'deny', criteria: "record.status == 'done'" },
      { access: 'allow', criteria: 'auth != null && record.user == auth.id' },
    ]);
    const model = app2.modelsById.get(TODO)!;
    const status = model.fieldsByName.get('status')!.column!;
    expect(whereText(accessCondition(app2, model, read(), 't'))).toEqual({
      sql: `"t"."${status}" <> cast($1 as text) and "t"."${fk}" = cast($2 as uuid)`,
      parameters: ['done', ANN.id],
    });
    // A deny rule that decides for everybody ends the list.
    const app3 = withRules([{ access: 'deny', criteria: 'auth == null' }, { access: 'allow', criteria: 'true' }]);
    expect(accessCondition(app3, app3.modelsById.get(TODO)!, read(null), 't')).toEqual({ kind: 'none' });
    expect(accessCondition(app3, app3.modelsById.get(TODO)!, read(), 't')).toEqual({ kind: 'all' });
  });

  it('folds the operation away', () => {
    const app2 = withRules([
      { access: 'allow', criteria: "operation == 'read'" },
      { access: 'allow', criteria: "operation == 'update' && auth != null && record.user == auth.id" },
    ]);
    const model = app2.modelsById.get(TODO)!;
    const ctx = (operation: RuleContext['operation']): RuleContext => ({ ...read(), operation });
    expect(accessCondition(app2, model, ctx('read'), 't')).toEqual({ kind: 'all' });
    expect(whereText(accessCondition(app2, model, ctx('update'), 't')).sql).toBe(`"t"."${fk}" = cast($1 as uuid)`);
    expect(accessCondition(app2, model, ctx('delete'), 't')).toEqual({ kind: 'none' });
  });

  it('uses defaultAccess when no rule matches, deny when it is absent', () => {
    expect(accessCondition(withRules([], 'allow'), withRules([], 'allow').modelsById.get(TODO)!, read(null), 't')).toEqual({ kind: 'all' });
    const noDefault = withRules([]);
    expect(accessCondition(noDefault, noDefault.modelsById.get(TODO)!, read(), 't')).toEqual({ kind: 'none' });
  });

  it('treats a rule erring on the request as no match (allow) or a match (deny)', () => {
    const allow = withRules([{ access: 'allow', criteria: "auth.email.endsWith('@example.test')" }]);
    expect(accessCondition(allow, allow.modelsById.get(TODO)!, read(null), 't')).toEqual({ kind: 'none' });
    const deny = withRules([{ access: 'deny', criteria: "auth.email == 'x'" }], 'allow');
    expect(accessCondition(deny, deny.modelsById.get(TODO)!, read(null), 't')).toEqual({ kind: 'none' });
    expect(accessCondition(deny, deny.modelsById.get(TODO)!, read(), 't')).toEqual({ kind: 'all' });
  });
});

describe('filterCondition', () => {
  const app = todoApp();
  const todo = app.modelsById.get(TODO)!;

  it('binds every value as a parameter', () => {
    const status = todo.fieldsByName.get('status')!.column!;
    const deadline = todo.fieldsByName.get('deadline')!.column!;
    expect(whereText(filterCondition(app, todo, "record.status == 'open' && record.deadline < now", read(), 't'))).toEqual({
      sql: `"t"."${status}" = cast($1 as text) and "t"."${deadline}" < cast($2 as timestamptz)`,
      parameters: ['open', NOW.toISOString()],
    });
    expect(filterCondition(app, todo, '1 == 2', read(), 't')).toEqual({ kind: 'none' });
  });

  it.each([
    ['does not parse', "record.status == 'open"],
    ['does not type-check', 'record.nope == 1'],
    ['is not boolean', 'record.title'],
    ['is not translatable', "record.title.lowerAscii() == 'a'"],
    ['uses matches()', "record.title.matches('a.*')"],
  ])('is a 400 naming /filter when it %s', (_what, source) => {
    try {
      filterCondition(app, todo, source, read(), 't');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(Problem);
      expect((error as Problem).status).toBe(400);
      expect((error as Problem).errors[0].path).toBe('/filter');
    }
  });
});

describe('fieldVisibility', () => {
  it('gives visible, hidden and per-row fields', () => {
    const app = todoApp((scode) => {
      const user = modelDef(scode, USER);
      user.fields.find((f) => f.name === 'email')!.accessControl = { rules: [{ access: 'allow', criteria: 'auth != null && record.id == auth.id' }], defaultAccess: 'deny' };
      user.fields.find((f) => f.name === 'name')!.accessControl = { rules: [{ access: 'deny', criteria: 'auth == null' }] };
    });
    const user = app.modelsById.get(USER)!;
    const anonymous = fieldVisibility(app, user, read(null));
    expect(anonymous.get('email')).toEqual({ kind: 'hidden' });
    expect(anonymous.get('name')).toEqual({ kind: 'hidden' });
    expect(anonymous.get('todos')).toEqual({ kind: 'visible' });
    const signed = fieldVisibility(app, user, read());
    expect(signed.get('name')).toEqual({ kind: 'visible' });
    const email = signed.get('email')!;
    expect(email.kind).toBe('row');
    if (email.kind === 'row') expect(sqlText(email.condition('e2'))).toEqual({ sql: `"e2"."id" = cast($1 as uuid)`, parameters: [ANN.id] });
  });
});

describe.each(await availableDrivers())('conditions on %s', (driver) => {
  let database: TestDatabase;
  let app: CompiledApp;
  let data: Seeded;

  beforeAll(async () => {
    database = await createTestDatabase(driver);
    app = todoApp();
    await createTables(database.db, app);
    data = await seed(database.db, app, 2, () => 10);
  });
  afterAll(() => database?.drop());

  async function ids(source: string): Promise<string[]> {
    const todo = app.modelsById.get(TODO)!;
    const condition = filterCondition(app, todo, source, read(), 't');
    if (condition.kind === 'none') return [];
    const where = condition.kind === 'all' ? sql`true` : condition.sql;
    const result = await sql<{ id: string }>`select t.id from ${ident(app.schema, todo.table)} t where ${where} order by t.id`.execute(database.db.kysely);
    return result.rows.map((r) => r.id);
  }
  const expected = (test: (t: Seeded['todos'][number]) => boolean) => data.todos.filter(test).map((t) => t.id).sort();

  it('matches CEL on empty values (three-valued logic)', async () => {
    expect(await ids("!(record.description == 'about 1')")).toEqual(expected((t) => t.description !== 'about 1'));
    expect(await ids('record.description == null')).toEqual(expected((t) => t.description === null));
    expect(await ids("record.description != 'about 3'")).toEqual(expected((t) => t.description !== 'about 3'));
    expect(await ids('!(record.deadline < now)')).toEqual(expected((t) => t.deadline !== null && t.deadline >= NOW.toISOString()));
  });

  it('translates in, string tests and relationships', async () => {
    expect(await ids("record.status in ['done']")).toEqual(expected((t) => t.status === 'done'));
    expect(await ids("!(record.status in ['done'])")).toEqual(expected((t) => t.status !== 'done'));
    expect(await ids("record.title.startsWith('todo 000')")).toEqual(expected((t) => t.title.startsWith('todo 000')));
    expect(await ids("record.title.contains('%')")).toEqual([]);
    expect(await ids(`record.user == '${data.users[1].id}'`)).toEqual(expected((t) => t.user === data.users[1].id));
    expect(await ids("record.user == 'not-a-uuid'")).toEqual([]);
    expect(await ids("record.user != 'not-a-uuid'")).toEqual(expected(() => true));
  });
});
