// The service under test: the real platform started in this process on a port, the to-do example
// with one more action and its HTTP trigger created and published through the management API,
// end users signed up through the generated API, their open to-dos inserted by SQL.
//
// The action (five effects, two writes), run by POST {prefix}/toDos/:id/followUps {title}:
//   load    data.get    the caller's to-do (the example's rule hides other users' to-dos: 404)
//   check   flow.if     it is open (else a 409 flow.fail, never taken here)
//   create  data.create a follow-up to-do of the caller with the given title
//   touch   data.update the to-do's description names the follow-up
//   reply   flow.return 201 {todo, followUp}
import { sql } from 'kysely';
import type { Action, AppDefinition, Trigger } from '../../src/definition/schema.ts';
import { compileApp, type CompiledApp } from '../../src/runtime/compiled-app.ts';
import type { Driver } from '../../src/storage/db.ts';
import { ident } from '../../src/storage/sql.ts';
import { apiPath, publishAndWait } from '../../test/frontend/published.ts';
import { todoScode } from '../../test/support/examples.ts';
import { startTestPlatform, type TestPlatform } from '../../test/support/platform.ts';
import { createTenant, createTodoApp } from '../../test/support/tenant.ts';
import { signup, type BenchService, type EndUser, type SeedSize } from '../support/setup.ts';

export const FOLLOW_UP_PATH = '/toDos/:id/followUps';

const followUp: Action = {
  id: 'urn:svc:action:follow-up',
  startEffectId: 'load',
  effects: [
    { actionEffectId: 'load', effect: 'data.get', params: { model: 'ToDo' }, bindParams: { id: 'state.todoId' }, next: 'check' },
    { actionEffectId: 'check', effect: 'flow.if', params: { else: 'refuse' }, bindParams: { condition: "results.load.status == 'open'" }, next: 'create' },
    {
      actionEffectId: 'create',
      effect: 'data.create',
      params: { model: 'ToDo' },
      bindParams: { values: "{'title': state.title, 'status': 'open', 'user': results.load.user}" },
      next: 'touch',
    },
    {
      actionEffectId: 'touch',
      effect: 'data.update',
      params: { model: 'ToDo' },
      bindParams: { id: 'state.todoId', values: "{'description': 'Follow-up: ' + results.create.id}" },
      next: 'reply',
    },
    { actionEffectId: 'reply', effect: 'flow.return', params: { status: 201 }, bindParams: { body: "{'todo': results.touch, 'followUp': results.create}" } },
    { actionEffectId: 'refuse', effect: 'flow.fail', params: { status: 409, message: 'Only an open to-do gets a follow-up.', code: 'not_open' } },
  ],
};

const followUpTrigger: Trigger = {
  trigger: { id: 'urn:svc:trigger:follow-up', type: 'http', method: 'POST', path: FOLLOW_UP_PATH },
  actionId: followUp.id,
  initialState: { todoId: 'request.params.id', title: 'request.body.title' },
  validation: ['auth != null', 'size(request.body.title) > 0'],
  isPublic: false,
};

export type { BenchService, SeedSize } from '../support/setup.ts';

async function seed(t: TestPlatform, app: CompiledApp, apiUrl: string, size: SeedSize): Promise<EndUser[]> {
  const db = t.platform.db.kysely;
  const todo = app.modelsByResource.get('toDos')!;
  const column = (name: string) => ident(todo.fieldsByName.get(name)!.column!);
  const users: EndUser[] = [];
  for (let i = 1; i <= size.users; i++) {
    const user = await signup(apiUrl, i);
    await sql`insert into ${ident(app.schema, todo.table)} (id, ${column('title')}, ${column('status')}, ${column('user')})
      select gen_random_uuid(), 'To-do ' || n, 'open', ${user.id}::uuid from generate_series(1, ${size.todosPerUser}::int) n`.execute(db);
    const ids = await sql<{ id: string }>`select id from ${ident(app.schema, todo.table)} where ${column('user')} = ${user.id} order by id`.execute(db);
    users.push({ ...user, todoIds: ids.rows.map((r) => r.id) });
  }
  await sql`analyze`.execute(db);
  return users;
}

export async function startService(driver: Driver, size: SeedSize): Promise<BenchService> {
  const t = await startTestPlatform(driver);
  try {
    const tenant = await createTenant(t, 'Actions bench');
    const scode = todoScode() as unknown as AppDefinition;
    scode.actions.push(followUp);
    scode.triggers.push(followUpTrigger);
    const created = await createTodoApp(tenant, scode);
    await publishAndWait(t, tenant, created.id, created.serverVersion);
    const app = compileApp(created.id, created.serverVersion, created.scode);
    const apiUrl = `${t.baseUrl}${apiPath(t, created.id, created.serverVersion)}`;
    const users = await seed(t, app, apiUrl, size);
    return { t, app, apiUrl, users, close: () => t.close() };
  } catch (error) {
    await t.close();
    throw error;
  }
}
