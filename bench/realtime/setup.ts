// The service under test for `npm run bench:realtime`: the real platform in this process, the to-do
// example (less its event trigger) published through the management API, and `users` end users with
// one to-do each inserted by SQL (signing 10,000 users up through scrypt would take minutes and
// measure nothing of realtime), each with an access token signed with the application's own key,
// as the service signs them.
import { SignJWT } from 'jose';
import { sql } from 'kysely';
import type { AppDefinition } from '../../src/definition/schema.ts';
import type { RealtimeSettings } from '../../src/realtime/index.ts';
import { compileApp, type CompiledApp } from '../../src/runtime/compiled-app.ts';
import type { Driver } from '../../src/storage/db.ts';
import { ident } from '../../src/storage/sql.ts';
import { publish } from '../../test/support/publish.ts';
import { startTestPlatform, type TestPlatform } from '../../test/support/platform.ts';
import { createTenant, createTodoApp } from '../../test/support/tenant.ts';
import { todoScodeWithoutEvents } from '../../test/runtime/served-app.ts';
import { endUserKey } from '../support/baseline.ts';

export interface Subscriber {
  id: string;
  token: string;
  todoId: string;
}

export interface RealtimeService {
  t: TestPlatform;
  app: CompiledApp;
  /** `http://127.0.0.1:port/apps/{id}/api/v{version}` */
  apiUrl: string;
  users: Subscriber[];
  close(): Promise<void>;
}

/** Starts the service with `realtime` settings and seeds `users` end users with a to-do each. */
export async function startRealtimeService(driver: Driver, users: number, realtime: RealtimeSettings): Promise<RealtimeService> {
  // Tokens live for the whole run: no expiry timer fires in the middle of a measurement.
  const t = await startTestPlatform(driver, { realtime });
  try {
    const tenant = await createTenant(t, 'Realtime bench');
    const created = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, created.id);
    const app = compileApp(created.id, created.serverVersion, created.scode as unknown as AppDefinition);
    const apiUrl = `${t.baseUrl}${t.config.appsPath}/${created.id}/api/v${created.serverVersion}`;
    const db = t.platform.db.kysely;
    const user = app.userModel!;
    const todo = app.modelsByResource.get('toDos')!;
    const u = (name: string) => ident(user.fieldsByName.get(name)!.column!);
    const c = (name: string) => ident(todo.fieldsByName.get(name)!.column!);
    await sql`insert into ${ident(app.schema, user.table)} (id, ${u('name')}, ${u('email')})
      select gen_random_uuid(), 'User ' || i, 'user' || i || '@bench.test' from generate_series(1, ${users}::int) i`.execute(db);
    await sql`insert into ${ident(app.schema, todo.table)} (id, ${c('title')}, ${c('status')}, ${c('user')})
      select gen_random_uuid(), 'To-do of ' || u.id, 'open', u.id from ${ident(app.schema, user.table)} u`.execute(db);
    await sql`analyze`.execute(db);
    const rows = await sql<{ id: string; todo_id: string }>`select ${c('user')} as id, id as todo_id from ${ident(app.schema, todo.table)} order by ${c('user')}`.execute(db);
    const key = await endUserKey(t, created.id);
    const subscribers: Subscriber[] = [];
    for (const row of rows.rows) {
      const token = await new SignJWT({ ims: Date.now() }).setProtectedHeader({ alg: 'HS256' }).setSubject(row.id).setAudience(`app:${created.id}`).setIssuedAt().setExpirationTime('4h').sign(key);
      subscribers.push({ id: row.id, token, todoId: row.todo_id });
    }
    return { t, app, apiUrl, users: subscribers, close: () => t.close() };
  } catch (error) {
    await t.close();
    throw error;
  }
}
