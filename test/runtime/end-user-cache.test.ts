// The signed-in end user kept between requests (src/runtime/end-user-cache.ts), over real HTTP on
// both drivers: it is kept (a change made with the notice trigger switched off stays unseen),
// and any change to the user row, made by plain SQL outside the service, reaches the next
// requests through the trigger's notice: a new name is answered, a deleted user's token is refused.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { compileApp, type CompiledApp } from '../../src/runtime/compiled-app.ts';
import { USER_NOTICE_TRIGGER } from '../../src/runtime/end-user-cache.ts';
import { ident } from '../../src/storage/sql.ts';
import { availableDrivers } from '../support/databases.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp } from '../support/tenant.ts';
import { publish, ServedApi, whoamiScode, type Rec } from './served-app.ts';

/** Asks until `done` says yes (at most `ms`); the last answer. */
async function eventually<T>(ask: () => Promise<T>, done: (answer: T) => boolean, ms = 3000): Promise<T> {
  const until = Date.now() + ms;
  let answer = await ask();
  while (!done(answer) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    answer = await ask();
  }
  return answer;
}

describe.each(await availableDrivers())('the end-user cache on %s', (driver) => {
  let t: TestPlatform;
  let api: ServedApi;
  let app: CompiledApp;

  const userTable = () => ident(app.schema, app.userModel!.table);
  const nameColumn = () => ident(app.userModel!.fieldsByName.get('name')!.column!);
  const whoami = async (token: string) => {
    const reply = await api.get<Rec>('/whoami', token);
    return { status: reply.status, name: reply.body?.name };
  };

  beforeAll(async () => {
    t = await startTestPlatform(driver);
    const tenant = await createTenant(t, 'End-user cache');
    // `GET /whoami` answers the caller's id and name: `auth` reads two plain columns.
    const created = await createTodoApp(tenant, whoamiScode("{'id': auth.id, 'name': auth.name}"));
    await publish(tenant, created.id);
    app = compileApp(created.id, created.serverVersion, created.scode as unknown as AppDefinition);
    api = new ServedApi(t, tenant, created.id, created.serverVersion);
  });
  afterAll(() => t?.close());

  it('creates the notice trigger on the user table when the app is deployed', async () => {
    const found = await sql<{ n: number }>`select count(*)::int as n from pg_trigger g join pg_class c on c.oid = g.tgrelid
      join pg_namespace s on s.oid = c.relnamespace
      where s.nspname = ${app.schema} and c.relname = ${app.userModel!.table} and g.tgname = ${USER_NOTICE_TRIGGER}`.execute(t.platform.db.kysely);
    expect(found.rows[0].n).toBe(1);
  });

  it('keeps the user between requests: a change that sends no notice is not seen', async () => {
    const ann = await api.signup('Ann', 'ann@example.test');
    expect(await whoami(ann.token)).toEqual({ status: 200, name: 'Ann' });
    const db = t.platform.db.kysely;
    await sql`alter table ${userTable()} disable trigger ${ident(USER_NOTICE_TRIGGER)}`.execute(db);
    try {
      await sql`update ${userTable()} set ${nameColumn()} = 'Quiet' where id = ${ann.user.id}`.execute(db);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await whoami(ann.token)).toEqual({ status: 200, name: 'Ann' });
    } finally {
      await sql`alter table ${userTable()} enable trigger ${ident(USER_NOTICE_TRIGGER)}`.execute(db);
    }
  });

  it('sees a change made by plain SQL outside the service once its notice arrives', async () => {
    const bob = await api.signup('Bob', 'bob@example.test');
    expect(await whoami(bob.token)).toEqual({ status: 200, name: 'Bob' });
    await sql`update ${userTable()} set ${nameColumn()} = 'Robert' where id = ${bob.user.id}`.execute(t.platform.db.kysely);
    expect(await eventually(() => whoami(bob.token), (a) => a.name === 'Robert')).toEqual({ status: 200, name: 'Robert' });
  });

  it('refuses the token of a user deleted by plain SQL once the notice arrives', async () => {
    const cid = await api.signup('Cid', 'cid@example.test');
    expect((await whoami(cid.token)).status).toBe(200);
    await sql`delete from ${userTable()} where id = ${cid.user.id}`.execute(t.platform.db.kysely);
    expect((await eventually(() => whoami(cid.token), (a) => a.status === 401)).status).toBe(401);
    expect((await api.get('/toDos', cid.token)).status).toBe(401);
  });

  it('refuses at once the token of a user the service itself deletes', async () => {
    const dan = await api.signup('Dan', 'dan@example.test');
    expect((await whoami(dan.token)).status).toBe(200);
    expect((await api.delete(`/users/${dan.user.id}`, 'admin')).status).toBe(204);
    expect((await whoami(dan.token)).status).toBe(401);
  });
});
