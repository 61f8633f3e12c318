// A request that stays slow whatever else changes, for the tests of the statement timeout and of
// cancellation: one end user owning 200,000 to-dos (seeded by SQL), listed sorted by a long,
// unindexed text member far past the start. PostgreSQL must sort every row of the user (an
// external sort: the rows do not fit in work_mem) before it can skip the offset.
// The descriptions are 2 KiB, past the TOAST threshold, so they are stored compressed and every
// comparison of the sort decompresses two of them: 2-3 s, several times the 500 ms the
// tests bound statements to. (At 512 characters, stored plain, the same sort took 0.4-0.5 s
// under a C.UTF-8 collation: no longer past the bound.)
import { sql } from 'kysely';
import { columnNameForField, schemaNameForApp, tableNameForModel } from '../../src/definition/naming.ts';
import { withoutStatementTimeout } from '../../src/storage/db.ts';
import { ident } from '../../src/storage/sql.ts';
import type { TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp } from '../support/tenant.ts';
import { publish, ServedApi, todoScodeWithoutEvents } from './served-app.ts';

export const SEEDED_TODOS = 200_000;
/** Each description is md5(i) this many times: 2,048 characters, stored compressed (see above). */
const DESCRIPTION_REPEATS = 64;

/** 200,000 to-dos sorted by their 2,048-character description, the one after 150,000 of them (~2.5 s). */
export const SLOW_LIST = '/toDos?sort=description&offset=150000&limit=1';

export interface SlowApp {
  api: ServedApi;
  /** The end user owning the to-dos. */
  owner: { token: string; id: string };
  /** Another end user, owning nothing. */
  other: { token: string; id: string };
  /** The schema and table of the to-dos (statements name them quoted). */
  todoTable: { schema: string; table: string };
}

/** Publishes the to-do example on `t` and gives one of its end users 200,000 to-dos. */
export async function seedSlowApp(t: TestPlatform): Promise<SlowApp> {
  const tenant = await createTenant(t, 'Slow requests');
  const app = await createTodoApp(tenant, todoScodeWithoutEvents());
  await publish(tenant, app.id);
  const api = new ServedApi(t, tenant, app.id, app.serverVersion);
  const owner = await api.signup('Owner', 'owner@example.com');
  const other = await api.signup('Other', 'other@example.com');
  const schema = schemaNameForApp(app.id);
  const table = tableNameForModel('urn:svc:model:todo');
  const col = (id: string) => ident(columnNameForField(id));
  // The service's handle may have a short statement timeout: the seed lifts it.
  await t.platform.db.kysely.transaction().execute(async (trx) => {
    await withoutStatementTimeout(trx);
    await sql`
    insert into ${ident(schema, table)}
      (${col('urn:svc:edge:todo-title')}, ${col('urn:svc:edge:todo-description')}, ${col('urn:svc:edge:todo-status')}, ${col('urn:svc:edge:todo-user')})
    select 'To-do ' || i, repeat(md5(i::text), ${DESCRIPTION_REPEATS}::int), 'open', ${owner.user.id}::uuid
    from generate_series(1, ${SEEDED_TODOS}::int) i`.execute(trx);
    await sql`analyze ${ident(schema, table)}`.execute(trx);
  });
  return {
    api,
    owner: { token: owner.token, id: owner.user.id },
    other: { token: other.token, id: other.user.id },
    todoTable: { schema, table },
  };
}
