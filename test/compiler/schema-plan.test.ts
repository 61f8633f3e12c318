// The schema compiler's pure parts: planning, rendering, migration plans, purge plans, literals.
import { describe, expect, it } from 'vitest';
import { columnNameForField, joinTableName, schemaNameForApp, tableNameForModel } from '../../src/definition/naming.ts';
import { PRIMITIVE_TYPES } from '../../src/definition/schema.ts';
import { Problem } from '../../src/errors.ts';
import {
  planMigration,
  planPurge,
  planSchema,
  quoteLiteral,
  renderCreateStatements,
  summarizeMigration,
  type SchemaPlan,
  type TablePlan,
} from '../../src/compiler/schema/index.ts';
import { field, model, newAppId, primitive, TAG, todo, todoWithTags, TODO, USER } from './fixtures/definitions.ts';

const APP = '0190c0de-0000-7000-8000-000000000001';

function table(plan: SchemaPlan, modelId: string): TablePlan {
  const found = plan.tables.find((t) => t.name === tableNameForModel(modelId));
  if (!found) throw new Error(`no table for ${modelId}`);
  return found;
}
const column = (t: TablePlan, fieldId: string) => t.columns.find((c) => c.name === columnNameForField(fieldId));

function problemOf(run: () => unknown): Problem {
  try {
    run();
  } catch (error) {
    if (error instanceof Problem) return error;
    throw error;
  }
  throw new Error('expected a Problem');
}

describe('planSchema', () => {
  it('lays out the to-do example as DESIGN §3 says', () => {
    const plan = planSchema(todo(), APP);
    expect(plan.schema).toBe(schemaNameForApp(APP));
    expect(plan.tables.map((t) => t.name)).toEqual([tableNameForModel(TODO), tableNameForModel(USER)]);
    const todos = table(plan, TODO);
    expect(todos.columns.slice(0, 3).map((c) => [c.name, c.sqlType, c.notNull, c.default])).toEqual([
      ['id', 'uuid', true, 'gen_random_uuid()'],
      ['created_at', 'timestamptz', true, 'now()'],
      ['updated_at', 'timestamptz', true, 'now()'],
    ]);
    expect(column(todos, 'urn:svc:edge:todo-title')).toMatchObject({ sqlType: 'text', notNull: true, isArray: false, default: null, check: null });
    expect(column(todos, 'urn:svc:edge:todo-deadline')).toMatchObject({ sqlType: 'timestamptz', notNull: false });
    const status = column(todos, 'urn:svc:edge:todo-status')!;
    expect(status.default).toBe("'open'");
    expect(status.check).toBe(`"${status.name}" in ('open', 'done')`);
    // The belongs-to side holds the FK; the has-many side has no column.
    const user = column(todos, 'urn:svc:edge:todo-user')!;
    expect(user).toMatchObject({ sqlType: 'uuid', notNull: true });
    expect(column(table(plan, USER), 'urn:svc:edge:user-todos')).toBeUndefined();
    expect(plan.foreignKeys).toEqual([
      expect.objectContaining({ table: tableNameForModel(TODO), column: user.name, refTable: tableNameForModel(USER), onDelete: 'cascade' }),
    ]);
    expect(plan.indexes.filter((i) => !i.searchColumn)).toEqual([expect.objectContaining({ table: tableNameForModel(TODO), columns: [user.name] })]);
    expect(plan.joinTables).toEqual([]);
  });

  it('maps every primitive type, arrays, NOT NULL, enum and star-rating checks', () => {
    const def = todo();
    const expected: Record<string, string> = {
      p_TEXT: 'text', p_NUMBER: 'double precision', p_BOOLEAN: 'boolean', p_DATE: 'date', p_DATE_TIME: 'timestamptz',
      p_TIME: 'time', p_STAR_RATING: 'smallint', p_LINK: 'text', p_IMAGE: 'text', p_VIDEO: 'text', p_FILE: 'text',
      p_PHONE_NUMBER: 'text', p_ADDRESS: 'jsonb', p_CURRENCY_AMOUNT: 'jsonb',
    };
    expect(Object.keys(expected).sort()).toEqual([...PRIMITIVE_TYPES].sort());
    for (const type of PRIMITIVE_TYPES) {
      model(def, TODO).fields.push(primitive(`urn:svc:edge:one-${type}`, `one${type}`, type));
      model(def, TODO).fields.push(primitive(`urn:svc:edge:many-${type}`, `many${type}`, type, { max: null, min: 1 }));
    }
    const todos = table(planSchema(def, APP), TODO);
    for (const type of PRIMITIVE_TYPES) {
      const one = column(todos, `urn:svc:edge:one-${type}`)!;
      const many = column(todos, `urn:svc:edge:many-${type}`)!;
      expect([one.sqlType, one.isArray, one.notNull], type).toEqual([expected[type], false, false]);
      expect([many.sqlType, many.isArray, many.notNull], type).toEqual([expected[type], expected[type] !== 'jsonb', true]);
    }
    expect(column(todos, 'urn:svc:edge:one-p_STAR_RATING')!.check).toMatch(/between 0 and 5$/);
    expect(column(todos, 'urn:svc:edge:many-p_STAR_RATING')!.check).toContain('<@ array[0, 1, 2, 3, 4, 5]::smallint[]');
  });

  it('uses <@ for an enum on an array column, and typed literals for defaults', () => {
    const def = todo();
    model(def, TODO).fields.push(
      primitive('urn:svc:edge:todo-labels', 'labels', 'p_TEXT', { max: 3, enum: ['a', "it's"], defaultValue: ['a'] }),
      primitive('urn:svc:edge:todo-weight', 'weight', 'p_NUMBER', { defaultValue: 2.5 }),
      primitive('urn:svc:edge:todo-flag', 'flag', 'p_BOOLEAN', { defaultValue: false }),
      primitive('urn:svc:edge:todo-where', 'where', 'p_ADDRESS', { defaultValue: { city: "O'Hara" } }),
    );
    const todos = table(planSchema(def, APP), TODO);
    const labels = column(todos, 'urn:svc:edge:todo-labels')!;
    expect(labels.check).toBe(`("${labels.name}" <@ array['a', 'it''s']::text[]) and (cardinality("${labels.name}") <= 3)`);
    expect(labels.default).toBe("array['a']::text[]");
    expect(column(todos, 'urn:svc:edge:todo-weight')!.default).toBe("'2.5'::double precision");
    expect(column(todos, 'urn:svc:edge:todo-flag')!.default).toBe('false');
    expect(column(todos, 'urn:svc:edge:todo-where')!.default).toBe(`'{"city":"O''Hara"}'::jsonb`);
  });

  it('refuses a default that does not fit the type, and a non-finite number', () => {
    const def = todo();
    model(def, TODO).fields.push(primitive('urn:svc:edge:todo-n', 'n', 'p_NUMBER', { defaultValue: 'DROP TABLE x' }));
    const problem = problemOf(() => planSchema(def, APP));
    expect(problem.status).toBe(409);
    expect(problem.errors[0].path).toBe('/models/0/fields/5/defaultValue');
    field(def, 'urn:svc:edge:todo-n').defaultValue = Number.POSITIVE_INFINITY;
    expect(problemOf(() => planSchema(def, APP)).status).toBe(409);
  });

  it('has no column for a computed field', () => {
    const def = todo();
    model(def, TODO).fields.push(primitive('urn:svc:edge:todo-late', 'late', 'p_BOOLEAN', { computed: 'record.deadline < now' }));
    expect(column(table(planSchema(def, APP), TODO), 'urn:svc:edge:todo-late')).toBeUndefined();
  });

  it('gives a many-to-many pair one join table, the same from either side, with cascading FKs and an index on the second column', () => {
    const plan = planSchema(todoWithTags(), APP);
    const name = joinTableName('urn:svc:edge:todo-tags', 'urn:svc:edge:tag-todos');
    expect(plan.joinTables.map((t) => t.name)).toEqual([name]);
    const join = plan.joinTables[0];
    // Sorted by field id: tag-todos < todo-tags.
    const first = columnNameForField('urn:svc:edge:tag-todos');
    const second = columnNameForField('urn:svc:edge:todo-tags');
    expect(join.primaryKey).toEqual([first, second]);
    expect(join.columns.map((c) => [c.name, c.sqlType, c.notNull])).toEqual([[first, 'uuid', true], [second, 'uuid', true]]);
    const keys = plan.foreignKeys.filter((fk) => fk.table === name);
    // The column named after Tag.todos holds the Tag's id.
    expect(keys.map((fk) => [fk.column, fk.refTable, fk.onDelete])).toEqual([
      [first, tableNameForModel(TAG), 'cascade'],
      [second, tableNameForModel(TODO), 'cascade'],
    ]);
    expect(plan.indexes.filter((i) => i.table === name).map((i) => i.columns)).toEqual([[second]]);
    const reversed = todoWithTags();
    reversed.models.reverse();
    const shape = (t: TablePlan) => [t.name, t.primaryKey, t.columns.map((c) => c.name)];
    expect(planSchema(reversed, APP).joinTables.map(shape)).toEqual(plan.joinTables.map(shape));
  });

  it('uses ON DELETE SET NULL for an optional pointer', () => {
    const def = todo();
    field(def, 'urn:svc:edge:todo-user').min = 0;
    expect(planSchema(def, APP).foreignKeys[0].onDelete).toBe('set null');
  });
});

describe('renderCreateStatements', () => {
  it('orders schema, tables (foreign keys inline), indexes and quotes every identifier', () => {
    const statements = renderCreateStatements(planSchema(todoWithTags(), APP));
    const kinds = statements.map((s) => s.split(' ').slice(0, 2).join(' '));
    // Two foreign-key indexes, then the stored search column and its GIN index for each model with text fields.
    expect(kinds.slice(0, 7)).toEqual(['create schema', 'create table', 'create table', 'create table', 'create table', 'create index', 'create index']);
    const search = statements.slice(7);
    expect(search.length).toBeGreaterThan(0);
    search.forEach((s, i) => expect(s).toMatch(i % 2 === 0 ? / add column if not exists "search_\w+" tsvector generated always as \(to_tsvector\('simple'::regconfig, .*\) stored$/ : / using gin \("search_\w+"\)$/));
    // Each table comes after the tables it points to, and names its foreign keys itself.
    expect(statements.filter((s) => s.includes(' foreign key '))).toHaveLength(2);
    expect(statements.findIndex((s) => s.includes('."m_user" ('))).toBeLessThan(statements.findIndex((s) => s.includes('."m_todo" (')));
    for (const statement of statements) {
      expect(statement).not.toContain(';');
      expect(statement).not.toMatch(/[ (]m_|[ (]f_|[ (]j_/); // identifiers appear only quoted
    }
  });
});

describe('planMigration', () => {
  const appId = newAppId();

  it('from nothing creates everything', () => {
    const plan = planMigration(null, todo(), appId);
    expect(plan.statements).toEqual(renderCreateStatements(planSchema(todo(), appId)));
    expect(summarizeMigration(plan)).toEqual([
      `create schema ${schemaNameForApp(appId)}`, 'create table User', 'create table ToDo', 'create index on ToDo.user',
      'add search column of ToDo', 'create index on ToDo search', 'add search column of User', 'create index on User search',
    ]);
  });

  it('has no statement for an unchanged definition or a rename', () => {
    expect(planMigration(todo(), todo(), appId).statements).toEqual([]);
    const renamed = todo();
    model(renamed, TODO).name = 'Task';
    field(renamed, 'urn:svc:edge:todo-title').name = 'headline';
    expect(planMigration(todo(), renamed, appId).statements).toEqual([]);
  });

  it('adds a column for a new field', () => {
    const next = todo();
    model(next, TODO).fields.push(primitive('urn:svc:edge:todo-priority', 'priority', 'p_STAR_RATING', { min: 1, defaultValue: 3 }));
    const plan = planMigration(todo(), next, appId);
    expect(summarizeMigration(plan)).toEqual(['add column ToDo.priority', 'require ToDo.priority', 'check ToDo.priority']);
    expect(plan.statements[0]).toMatch(/add column if not exists "f_todo_priority__\w+" smallint default '3'::smallint$/);
  });

  it('keeps the column of a removed field and the table of a removed model, relaxing NOT NULL', () => {
    const next = todo();
    model(next, TODO).fields = model(next, TODO).fields.filter((f) => f.id !== 'urn:svc:edge:todo-title');
    const plan = planMigration(todo(), next, appId);
    expect(plan.retained).toEqual([
      expect.objectContaining({ kind: 'column', table: 'm_todo', column: columnNameForField('urn:svc:edge:todo-title'), sourceIds: ['urn:svc:edge:todo-title'] }),
    ]);
    // A search column without the removed field comes; the earlier one stays for versions served side by side.
    expect(summarizeMigration(plan)).toEqual(['allow null in ToDo.title (kept after removal)', 'add search column of ToDo', 'create index on ToDo search',
      'keep column ToDo.title (removed from the definition; purge to drop)',
    ]);
    expect(plan.statements[0]).toMatch(/alter column "f_todo_title__\w+" drop not null$/);
    expect(plan.statements.join('\n')).not.toMatch(/\bdrop (column|table)\b/);

    const withTags = todoWithTags();
    const withoutTags = todo();
    const removal = planMigration(withTags, withoutTags, appId);
    expect(removal.retained.map((r) => [r.kind, r.label])).toEqual([['table', 'Tag'], ['table', 'Tag.todos ↔ ToDo.tags']]);
    expect(removal.statements).toEqual([]);
  });

  it('backfills from the default before requiring a value, and replaces a changed enum check', () => {
    const before = todo();
    const next = todo();
    Object.assign(field(next, 'urn:svc:edge:todo-description'), { min: 1, defaultValue: 'n/a' });
    field(next, 'urn:svc:edge:todo-status').enum = ['open', 'done', 'archived'];
    const plan = planMigration(before, next, appId);
    expect(summarizeMigration(plan)).toEqual([
      'drop check of ToDo.status', 'set default of ToDo.description', 'fill empty ToDo.description with its default', 'require ToDo.description', 'check ToDo.status',
    ]);
    expect(plan.statements[2]).toMatch(/^update .* set "f_todo_description__\w+" = 'n\/a' where "f_todo_description__\w+" is null$/);
    expect(plan.steps[3].path).toBe('/models/0/fields/1/min');
  });

  it('converts a changed type with USING, dropping and restoring its check and default', () => {
    const next = todo();
    Object.assign(field(next, 'urn:svc:edge:todo-status'), { to: 'p_NUMBER', enum: undefined, defaultValue: 0 });
    const plan = planMigration(todo(), next, appId);
    const convert = plan.steps.find((s) => s.summary.startsWith('convert'))!;
    expect(convert.summary).toBe('convert ToDo.status from text to double precision');
    expect(convert.sql).toMatch(/type double precision using nullif\(btrim\("f_todo_status__\w+"\), ''\)::double precision$/);
    expect(convert.path).toBe('/models/0/fields/3/to');
    const order = plan.steps.map((s) => s.summary);
    expect(order.indexOf('drop check of ToDo.status')).toBeLessThan(order.indexOf(convert.summary));
    expect(order.indexOf('drop default of ToDo.status')).toBeLessThan(order.indexOf(convert.summary));
    expect(order.indexOf('set default of ToDo.status')).toBeGreaterThan(order.indexOf(convert.summary));
  });

  it('refuses a type change without a safe conversion, naming the field', () => {
    const next = todo();
    field(next, 'urn:svc:edge:todo-deadline').to = 'p_NUMBER';
    const problem = problemOf(() => planMigration(todo(), next, appId));
    expect(problem.status).toBe(409);
    expect(problem.errors).toEqual([{ path: '/models/0/fields/2/to', message: expect.stringContaining('timestamptz') }]);
  });

  it('adds a join table for a new many-to-many relationship', () => {
    const plan = planMigration(todo(), todoWithTags(), appId);
    expect(summarizeMigration(plan)).toContain('create join table Tag.todos ↔ ToDo.tags');
    expect(plan.statements.filter((s) => s.includes('foreign key'))).toHaveLength(2);
  });
});

describe('planPurge', () => {
  const appId = newAppId();
  const previous = todo();
  const current = todo();
  model(current, TODO).fields = model(current, TODO).fields.filter((f) => f.id !== 'urn:svc:edge:todo-description');

  it('drops the column of a removed field', () => {
    const plan = planPurge(current, appId, ['urn:svc:edge:todo-description'], [previous]);
    expect(plan.statements).toEqual([
      `alter table if exists "${schemaNameForApp(appId)}"."m_todo" drop column if exists "${columnNameForField('urn:svc:edge:todo-description')}" cascade`,
    ]);
    expect(summarizeMigration(plan)).toEqual(['drop column ToDo.description']);
  });

  it('drops the table of a removed model and its join table', () => {
    const plan = planPurge(todo(), appId, [TAG, 'urn:svc:edge:todo-tags'], [todoWithTags()]);
    expect(summarizeMigration(plan)).toEqual(['drop table Tag', 'drop table Tag.todos ↔ ToDo.tags']);
  });

  it('refuses ids still in the definition (409) and ids no earlier version stored', () => {
    const inUse = problemOf(() => planPurge(current, appId, ['urn:svc:edge:todo-title', TODO], [previous]));
    expect(inUse.status).toBe(409);
    expect(inUse.errors.map((e) => e.path)).toEqual(['/ids/0', '/ids/1']);
    const unknown = problemOf(() => planPurge(current, appId, ['urn:svc:edge:nope'], [previous]));
    expect(unknown.errors).toEqual([{ path: '/ids/0', message: expect.stringContaining('none of the given earlier versions') }]);
  });
});

describe('quoteLiteral', () => {
  it('doubles quotes, escapes backslashes in an E string, and refuses NUL', () => {
    expect(quoteLiteral('plain')).toBe("'plain'");
    expect(quoteLiteral("it's")).toBe("'it''s'");
    expect(quoteLiteral("'); drop table x; --")).toBe("'''); drop table x; --'");
    expect(quoteLiteral('a\\b')).toBe("E'a\\\\b'");
    expect(quoteLiteral("\\'")).toBe("E'\\\\'''");
    expect(() => quoteLiteral('a\u0000b')).toThrow(/NUL/);
  });
});
