// The service and the baseline as an outsider meets them (issue 43): a fresh PostgreSQL database,
// `appbuilder serve` (the compiled build) in a process of its own, the to-do example (less its
// event trigger) published through the management API, `users` end users × `todosPerUser` to-dos
// inserted by SQL, an access token for EVERY user signed with the app's key as the service signs
// them at log-in (a session id, `ims`, `auth_time`; two hours), then the baseline in a process of
// its own over the same database, with the same end-user key. The load (bench/support/load.ts) is a
// third process.
import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { sql } from 'kysely';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { compileApp, type CompiledApp } from '../../src/runtime/compiled-app.ts';
import type { Db } from '../../src/storage/db.ts';
import { ident } from '../../src/storage/sql.ts';
import { ApiClient } from '../../test/support/client.ts';
import { createTestDatabase, type TestDatabase } from '../../test/support/databases.ts';
import { BOOTSTRAP } from '../../test/support/platform.ts';
import { publish } from '../../test/support/publish.ts';
import { createTodoApp } from '../../test/support/tenant.ts';
import { todoScodeWithoutEvents } from '../../test/runtime/served-app.ts';
import { endUserKey } from '../support/baseline.ts';
import type { EndUser, SeedSize } from '../support/setup.ts';
import { NARROW_FIELDS, statements } from './baseline.ts';
import { startBaselineProcess, startServiceProcess, type ServerProcess } from './processes.ts';
import { insertUsersAndTodos } from './seed-sql.ts';

export interface OutsideBench {
  database: TestDatabase;
  app: CompiledApp;
  service: ServerProcess;
  baseline: ServerProcess;
  /** The service's `/apps/{id}/api/v{version}` path. */
  apiPath: string;
  adminHeaders: Record<string, string>;
  /** The baseline's administrator token. */
  adminToken: string;
  users: EndUser[];
  close(): Promise<void>;
}

/** A token as the service's log-in issues it (accounts/sessions.ts). */
export function accessToken(key: Uint8Array, applicationId: string, userId: string): Promise<string> {
  return new SignJWT({ sid: randomUUID(), ims: Date.now(), auth_time: Math.floor(Date.now() / 1000) })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(userId)
    .setAudience(`app:${applicationId}`)
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(key);
}

/**
 * `size.users` end users × `size.todosPerUser` to-dos inserted by SQL into the app's published
 * schema (some descriptions and deadlines null, statuses mixed), then ANALYZE; each user with a
 * token signed with `key` and their first ten to-do ids.
 */
export async function seedTodos(database: Db, app: CompiledApp, key: Uint8Array, size: SeedSize): Promise<EndUser[]> {
  const db = database.kysely;
  const todo = app.modelsByResource.get('toDos')!;
  const t = (name: string) => ident(todo.fieldsByName.get(name)!.column!);
  await insertUsersAndTodos(db, app, 1, size);
  const rows = await sql<{ user_id: string; ids: string[] }>`select ${t('user')} as user_id, (array_agg(id order by id))[1:10] as ids
    from ${ident(app.schema, todo.table)} group by ${t('user')} order by ${t('user')}`.execute(db);
  const users: EndUser[] = [];
  for (const row of rows.rows) users.push({ id: row.user_id, token: await accessToken(key, app.applicationId, row.user_id), todoIds: row.ids });
  return users;
}

export async function startOutside(size: SeedSize): Promise<OutsideBench> {
  // No statement timeout on the seed's connection: 100,000 rows take a while on a loaded machine.
  const database = await createTestDatabase('postgres', { statementTimeoutMs: 0 });
  const running: ServerProcess[] = [];
  try {
    const service = await startServiceProcess(database.url!);
    running.push(service);
    const admin = await ApiClient.login(service.url, { apiKey: BOOTSTRAP.id, secret: BOOTSTRAP.secret });
    const customer = await admin.post<{ apiClient: { apiKey: string; secret: string } }>('/v1/customers', { name: 'Runtime bench' });
    const api = await ApiClient.login(service.url, customer.body.apiClient);
    const project = await api.post<{ id: string }>('/v1/projects', { name: 'Runtime bench' });
    const tenant = { api, projectId: project.body.id };
    const created = await createTodoApp(tenant, todoScodeWithoutEvents());
    await publish(tenant, created.id);
    const app = compileApp(created.id, created.serverVersion, created.scode as unknown as AppDefinition);
    const key = await endUserKey(database.db, created.id);
    const users = await seedTodos(database.db, app, key, size);
    const adminKey = randomBytes(32);
    const adminToken = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setAudience('baseline-admin').setExpirationTime('2h').sign(adminKey);
    const baseline = await startBaselineProcess(database.url!, {
      statements: statements(app),
      endUserKey: Buffer.from(key).toString('base64url'),
      adminKey: adminKey.toString('base64url'),
      audience: `app:${created.id}`,
      narrowFields: NARROW_FIELDS,
    });
    running.push(baseline);
    return {
      database,
      app,
      service,
      baseline,
      apiPath: `/apps/${created.id}/api/v${created.serverVersion}`,
      adminHeaders: { authorization: `Bearer ${api.token}`, 'x-svc-api-client': api.apiKey! },
      adminToken,
      users,
      close: async () => {
        for (const server of running) await server.stop();
        await database.drop();
      },
    };
  } catch (error) {
    for (const server of running) await server.stop();
    await database.drop();
    throw error;
  }
}
