// The to-do example as a compiled app with its tables (plain DDL, as the schema compiler lays
// them out: `id uuid` key, created_at/updated_at, a column per stored field, FK on the belongs-to
// side, join tables) and seed data.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { compileApp, type CompiledApp, type CompiledModel } from '../../src/runtime/compiled-app.ts';
import type { Db } from '../../src/storage/db.ts';
import { ident } from '../../src/storage/sql.ts';
import { uuidv7 } from '../../src/tools/ids.ts';
import { todoScode } from '../support/examples.ts';

type Scode = ReturnType<typeof todoScode>;
type ModelDef = { id: string; fields: Array<Record<string, unknown>>; accessControl: { rules: Array<{ access: string; criteria: string }>; defaultAccess?: string } };

export const TODO = 'urn:svc:model:todo';
export const USER = 'urn:svc:model:user';

export function modelDef(scode: Scode, id: string): ModelDef {
  return scode.models.find((m) => m.id === id) as unknown as ModelDef;
}

/** The to-do example compiled under a fresh application id; `edit` changes its definition first. */
export function todoApp(edit?: (scode: Scode) => void): CompiledApp {
  const scode = todoScode();
  edit?.(scode);
  return compileApp(randomUUID(), '1.0.1', scode as unknown as AppDefinition);
}

const DDL_TYPES: Record<string, string> = {
  p_NUMBER: 'double precision',
  p_BOOLEAN: 'boolean',
  p_DATE: 'date',
  p_DATE_TIME: 'timestamptz',
  p_TIME: 'time',
  p_STAR_RATING: 'smallint',
  p_ADDRESS: 'jsonb',
  p_CURRENCY_AMOUNT: 'jsonb',
};

export async function createTables(db: Db, app: CompiledApp): Promise<void> {
  const k = db.kysely;
  await sql`create schema ${ident(app.schema)}`.execute(k);
  for (const model of app.models) {
    await sql`create table ${ident(app.schema, model.table)} (
      id uuid primary key, created_at timestamptz not null default now(), updated_at timestamptz not null default now())`.execute(k);
  }
  for (const model of app.models) {
    for (const field of model.fields) {
      if (!field.column) continue;
      const type = field.relation ? 'uuid' : (DDL_TYPES[field.to] ?? 'text');
      const column = sql`${ident(field.column)} ${sql.raw(type)}${sql.raw(field.many ? '[]' : '')}`;
      await sql`alter table ${ident(app.schema, model.table)} add column ${column}`.execute(k);
      if (field.relation) {
        const target = app.modelsById.get(field.relation.targetModelId)!;
        await sql`alter table ${ident(app.schema, model.table)} add foreign key (${ident(field.column)}) references ${ident(app.schema, target.table)} (id)`.execute(k);
        await sql`create index on ${ident(app.schema, model.table)} (${ident(field.column)})`.execute(k);
      }
    }
    for (const field of model.fields) {
      const storage = field.relation?.storage;
      if (storage?.kind !== 'joinTable') continue;
      await sql`create table if not exists ${ident(app.schema, storage.table)} (
        ${ident(storage.selfColumn)} uuid not null, ${ident(storage.otherColumn)} uuid not null,
        primary key (${ident(storage.selfColumn)}, ${ident(storage.otherColumn)}))`.execute(k);
    }
  }
}

/** Inserts a row: `values` by field name (to-one relationships by id); returns its id. */
export async function insert(db: Db, app: CompiledApp, model: CompiledModel, values: Record<string, unknown>, id = uuidv7()): Promise<string> {
  const columns = [sql`id`];
  const params = [sql`${id}`];
  for (const [name, value] of Object.entries(values)) {
    const field = model.fieldsByName.get(name);
    if (!field?.column) throw new Error(`No column for ${name}`);
    columns.push(ident(field.column));
    params.push(field.to === 'p_ADDRESS' ? sql`cast(${JSON.stringify(value)} as jsonb)` : sql`${value}`);
  }
  await sql`insert into ${ident(app.schema, model.table)} (${sql.join(columns)}) values (${sql.join(params)})`.execute(db.kysely);
  return id;
}

export interface Seeded {
  users: Array<{ id: string; name: string; email: string }>;
  todos: Array<{ id: string; title: string; description: string | null; deadline: string | null; status: string; user: string }>;
}

/**
 * `users` users (user0, user1, ...) with `todosPerUser[i]` to-dos each (default 3). Deadlines are
 * spread around 2024-06-15 (some in the past of NOW below, some after, every fifth one empty);
 * every third to-do is done.
 */
export async function seed(db: Db, app: CompiledApp, users: number, todosPerUser: (i: number) => number = () => 3): Promise<Seeded> {
  const userModel = app.modelsById.get(USER)!;
  const todoModel = app.modelsById.get(TODO)!;
  const out: Seeded = { users: [], todos: [] };
  let n = 0;
  for (let i = 0; i < users; i++) {
    const user = { name: `user${i}`, email: `user${i}@example.test` };
    const id = await insert(db, app, userModel, user);
    out.users.push({ id, ...user });
    for (let j = 0; j < todosPerUser(i); j++, n++) {
      const deadline = n % 5 === 4 ? null : new Date(Date.UTC(2024, 5, 1 + (n % 30), 12, 0, 0)).toISOString();
      const todo = { title: `todo ${String(n).padStart(4, '0')}`, description: n % 2 ? `about ${n}` : null, deadline, status: n % 3 === 2 ? 'done' : 'open', user: id };
      const todoId = await insert(db, app, todoModel, todo);
      out.todos.push({ id: todoId, ...todo });
    }
  }
  return out;
}

/** The `now` of the tests: deadlines before it are past. */
export const NOW = new Date('2024-06-15T00:00:00.000Z');
