// The service under test for bench:bulk: the real platform over PostgreSQL in this process, the
// to-do example (less its event trigger) published, one end user signed up through the API, and
// the bulk of the rows inserted by SQL on a connection of its own (a million rows take longer
// than the service's statement timeout in one statement).
import pg from 'pg';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { compileApp, type CompiledApp } from '../../src/runtime/compiled-app.ts';
import { quoteIdent } from '../../src/storage/sql.ts';
import { todoScode } from '../../test/support/examples.ts';
import { startTestPlatform, type TestPlatform } from '../../test/support/platform.ts';
import { publish } from '../../test/support/publish.ts';
import { createTenant, createTodoApp, type Tenant } from '../../test/support/tenant.ts';
import { signup } from '../support/setup.ts';

export interface BulkService {
  t: TestPlatform;
  tenant: Tenant;
  app: CompiledApp;
  apiUrl: string;
  connectionString: string;
  /** The signed-up end user's token. */
  token: string;
  close(): Promise<void>;
}

export async function startBulkService(users: number, todosPerUser: number): Promise<BulkService> {
  const t = await startTestPlatform('postgres');
  try {
    const tenant = await createTenant(t, 'Bulk bench');
    const scode = todoScode();
    scode.triggers = (scode.triggers as Array<{ trigger: { type: string } }>).filter((trigger) => trigger.trigger.type !== 'event');
    const created = await createTodoApp(tenant, scode);
    await publish(tenant, created.id);
    const app = compileApp(created.id, created.serverVersion, created.scode as unknown as AppDefinition);
    const apiUrl = `${t.baseUrl}${t.config.appsPath}/${created.id}/api/v${created.serverVersion}`;
    const { token } = await signup(apiUrl, 0);
    const connectionString = t.platform.db.connectionString!;
    const client = new pg.Client({ connectionString });
    await client.connect();
    try {
      const user = app.userModel!;
      const todo = app.modelsByResource.get('toDos')!;
      const users_ = `${quoteIdent(app.schema)}.${quoteIdent(user.table)}`;
      const todos = `${quoteIdent(app.schema)}.${quoteIdent(todo.table)}`;
      const u = (name: string) => quoteIdent(user.fieldsByName.get(name)!.column!);
      const c = (name: string) => quoteIdent(todo.fieldsByName.get(name)!.column!);
      await client.query(`insert into ${users_} (id, ${u('name')}, ${u('email')})
        select gen_random_uuid(), 'User ' || i, 'user' || i || '@bulk.test' from generate_series(1, ${users}) i`);
      await client.query(`insert into ${todos} (id, ${c('title')}, ${c('description')}, ${c('deadline')}, ${c('status')}, ${c('user')})
        select gen_random_uuid(), 'To-do ' || n, case when n % 3 = 0 then null else 'Details, "quoted", of to-do ' || n end,
          case when n % 5 = 0 then null else timestamptz '2030-01-01 00:00:00+00' + n * interval '7 hours' end,
          case when n % 4 = 0 then 'done' else 'open' end, u.id
        from ${users_} u cross join generate_series(1, ${todosPerUser}) n`);
      await client.query('analyze');
    } finally {
      await client.end();
    }
    return { t, tenant, app, apiUrl, connectionString, token, close: () => t.close() };
  } catch (error) {
    await t.close();
    throw error;
  }
}
