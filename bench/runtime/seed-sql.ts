// The bench's rows by SQL, into a published to-do app's schema: end users `from..size.users`, each
// with `size.todosPerUser` to-dos (some descriptions and deadlines null, statuses mixed), then ANALYZE.
import { sql } from 'kysely';
import type { Executor } from '../../src/storage/db.ts';
import type { CompiledApp } from '../../src/runtime/compiled-app.ts';
import { ident } from '../../src/storage/sql.ts';

export async function insertUsersAndTodos(db: Executor, app: CompiledApp, from: number, size: { users: number; todosPerUser: number }): Promise<void> {
  const user = app.userModel!;
  const todo = app.modelsByResource.get('toDos')!;
  const u = (name: string) => ident(user.fieldsByName.get(name)!.column!);
  const t = (name: string) => ident(todo.fieldsByName.get(name)!.column!);
  await sql`insert into ${ident(app.schema, user.table)} (id, ${u('name')}, ${u('email')})
    select gen_random_uuid(), 'User ' || i, 'user' || i || '@bench.test' from generate_series(${from}::int, ${size.users}::int) i`.execute(db);
  await sql`insert into ${ident(app.schema, todo.table)} (id, ${t('title')}, ${t('description')}, ${t('deadline')}, ${t('status')}, ${t('user')})
    select gen_random_uuid(), 'To-do ' || n, case when n % 3 = 0 then null else 'Details of to-do ' || n end,
      case when n % 5 = 0 then null else timestamptz '2030-01-01 00:00:00+00' + n * interval '7 hours' end,
      case when n % 4 = 0 then 'done' else 'open' end, u.id
    from ${ident(app.schema, user.table)} u cross join generate_series(1, ${size.todosPerUser}::int) n`.execute(db);
  await sql`analyze`.execute(db);
}
