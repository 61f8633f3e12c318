// Shared steps of the action-runner tests: the to-do example plus actions that exercise each
// effect family against the real tables, published on a real platform.
import { sql } from 'kysely';
import type { Action, AppDefinition, Trigger } from '../../src/definition/schema.ts';
import { DeploymentRegistry, type ServedApp } from '../../src/runtime/registry.ts';
import { ident } from '../../src/storage/sql.ts';
import { todoScode } from '../support/examples.ts';
import type { TestPlatform } from '../support/platform.ts';
import { createTodoApp, type Tenant } from '../support/tenant.ts';
import { apiPath, publishAndWait } from '../frontend/published.ts';

export const TODO = 'urn:svc:model:todo';
export const USER = 'urn:svc:model:user';

/** Every effect family over real data: create, get, update, find, count, delete. */
const crud: Action = {
  id: 'urn:svc:action:crud',
  startEffectId: 'create',
  effects: [
    {
      actionEffectId: 'create',
      effect: 'data.create',
      params: { model: 'ToDo' },
      bindParams: { values: "{'title': state.title, 'status': 'open', 'user': state.userId}" },
      next: 'get',
    },
    { actionEffectId: 'get', effect: 'data.get', params: { model: 'ToDo' }, bindParams: { id: 'results.create.id' }, next: 'update' },
    {
      actionEffectId: 'update',
      effect: 'data.update',
      params: { model: 'ToDo', values: { status: 'done' } },
      bindParams: { id: 'results.create.id' },
      next: 'find',
    },
    { actionEffectId: 'find', effect: 'data.find', params: { model: 'ToDo', filter: "record.status == 'done'", sort: 'title' }, next: 'count' },
    { actionEffectId: 'count', effect: 'data.count', params: { model: TODO }, next: 'delete' },
    { actionEffectId: 'delete', effect: 'data.delete', params: { model: 'ToDo' }, bindParams: { id: 'results.create.id' }, next: 'countAfter' },
    { actionEffectId: 'countAfter', effect: 'data.count', params: { model: 'ToDo' } },
  ],
  bindReturnValue:
    "{'created': results.create, 'got': results.get, 'updated': results.update, 'found': results.find, 'count': results.count, 'deleted': results.delete.id, 'after': results.countAfter}",
};

/** Two writes, then a failure nobody handles: both writes must roll back. */
const twoWritesThenFail: Action = {
  id: 'urn:svc:action:two-writes-then-fail',
  startEffectId: 'user',
  effects: [
    {
      actionEffectId: 'user',
      effect: 'data.create',
      params: { model: 'User', values: { name: 'Doomed', email: 'doomed@example.test' } },
      next: 'todo',
    },
    {
      actionEffectId: 'todo',
      effect: 'data.create',
      params: { model: 'ToDo' },
      bindParams: { values: "{'title': 'doomed', 'status': 'open', 'user': results.user.id}" },
      next: 'fail',
    },
    { actionEffectId: 'fail', effect: 'flow.fail', params: { status: 409, message: 'Changed my mind.', code: 'changed_mind' } },
  ],
};

/** event.emit, then a failure when state.fail is true. */
const emit: Action = {
  id: 'urn:svc:action:emit',
  startEffectId: 'emit',
  effects: [
    { actionEffectId: 'emit', effect: 'event.emit', params: { eventName: 'ToDo.nudged' }, bindParams: { payload: "{'marker': state.marker}" }, next: 'check' },
    { actionEffectId: 'check', effect: 'flow.if', params: { else: 'boom' }, bindParams: { condition: 'state.fail == false' } },
    { actionEffectId: 'boom', effect: 'flow.fail', params: { status: 500, message: 'Boom.' } },
  ],
};

/** flow.set, flow.forEach, flow.if and flow.return (status, headers, body). */
const flows: Action = {
  id: 'urn:svc:action:flows',
  startEffectId: 'init',
  effects: [
    { actionEffectId: 'init', effect: 'flow.set', params: { name: 'total', value: 0 }, next: 'loop' },
    { actionEffectId: 'loop', effect: 'flow.forEach', params: { body: 'add', as: 'n' }, bindParams: { items: 'state.items' }, next: 'decide' },
    { actionEffectId: 'add', effect: 'flow.set', params: { name: 'total' }, bindParams: { value: 'state.total + state.n' } },
    { actionEffectId: 'decide', effect: 'flow.if', params: { else: 'small' }, bindParams: { condition: 'state.total > 5.0' }, next: 'big' },
    { actionEffectId: 'big', effect: 'flow.return', params: { status: 201, headers: { 'x-size': 'big' } }, bindParams: { body: "{'total': state.total}" } },
    { actionEffectId: 'small', effect: 'flow.return', params: { status: 200 }, bindParams: { body: "{'total': state.total, 'size': 'small'}" } },
  ],
};

/**
 * A write the database refuses (a to-do of a user that does not exist: a foreign-key error),
 * handled with continueOriginalFlow; the next write must still work in the same transaction.
 */
const handled: Action = {
  id: 'urn:svc:action:handled',
  startEffectId: 'bad',
  effects: [
    {
      actionEffectId: 'bad',
      effect: 'data.create',
      params: { model: 'ToDo', values: { title: 'orphan', status: 'open', user: '00000000-0000-7000-8000-000000000000' } },
      onError: { nextId: 'recover', continueOriginalFlow: true },
      next: 'good',
    },
    { actionEffectId: 'recover', effect: 'flow.set', params: { name: 'recovered' }, bindParams: { value: 'error.code' } },
    {
      actionEffectId: 'good',
      effect: 'data.create',
      params: { model: 'ToDo' },
      bindParams: { values: "{'title': 'kept', 'status': 'open', 'user': state.userId}" },
    },
  ],
  bindReturnValue: "{'recovered': state.recovered, 'id': results.good.id}",
};

/** Reads under the caller's rules: every to-do the caller sees, then one by id. */
const peek: Action = {
  id: 'urn:svc:action:peek',
  startEffectId: 'all',
  effects: [
    { actionEffectId: 'all', effect: 'data.find', params: { model: 'ToDo' }, next: 'one' },
    { actionEffectId: 'one', effect: 'data.get', params: { model: 'ToDo' }, bindParams: { id: 'state.todoId' } },
  ],
  bindReturnValue: "{'all': results.all, 'one': results.one}",
};

/** The action's own handler takes a database failure after a write; the write before it stays. */
const guarded: Action = {
  id: 'urn:svc:action:guarded',
  startEffectId: 'first',
  onError: { nextId: 'note' },
  effects: [
    {
      actionEffectId: 'first',
      effect: 'data.create',
      params: { model: 'ToDo' },
      bindParams: { values: "{'title': 'before the failure', 'status': 'open', 'user': state.userId}" },
      next: 'bad',
    },
    {
      actionEffectId: 'bad',
      effect: 'data.create',
      params: { model: 'ToDo', values: { title: 'orphan', status: 'open', user: '00000000-0000-7000-8000-000000000000' } },
      next: 'never',
    },
    { actionEffectId: 'never', effect: 'flow.set', params: { name: 'reached', value: true } },
    { actionEffectId: 'note', effect: 'flow.set', params: { name: 'handled' }, bindParams: { value: 'error.effectId' } },
  ],
  bindReturnValue: "{'first': results.first.id, 'handled': state.handled}",
};

/** Updates two to-dos with a pause between them (an HTTP call): two runs in opposite order deadlock. */
const swap: Action = {
  id: 'urn:svc:action:swap',
  startEffectId: 'first',
  effects: [
    { actionEffectId: 'first', effect: 'data.update', params: { model: 'ToDo', values: { title: 'swapped' } }, bindParams: { id: 'state.first' }, next: 'pause' },
    { actionEffectId: 'pause', effect: 'http.request', params: { method: 'GET' }, bindParams: { url: 'state.pauseUrl' }, next: 'second' },
    { actionEffectId: 'second', effect: 'data.update', params: { model: 'ToDo', values: { title: 'swapped' } }, bindParams: { id: 'state.second' } },
  ],
};

export const EXTRA_ACTIONS = [crud, twoWritesThenFail, emit, flows, handled, peek, guarded, swap];

/** The to-do example with the actions above (and `edit` applied). */
export function runnerScode(edit?: (scode: AppDefinition) => void): AppDefinition {
  const scode = todoScode() as unknown as AppDefinition;
  scode.actions.push(...structuredClone(EXTRA_ACTIONS));
  edit?.(scode);
  return scode;
}

export interface Published {
  id: string;
  serverVersion: string;
  /** `{appsPath}/{id}/api/v{version}` */
  path: string;
  served: ServedApp;
}

export async function publishApp(t: TestPlatform, tenant: Tenant, scode: AppDefinition): Promise<Published> {
  const app = await createTodoApp(tenant, scode);
  await publishAndWait(t, tenant, app.id, app.serverVersion);
  const served = await new DeploymentRegistry(t.platform.db).resolve(app.id, app.serverVersion);
  if (!served) throw new Error('published but not served');
  return { id: app.id, serverVersion: app.serverVersion, path: apiPath(t, app.id, app.serverVersion), served };
}

export function triggerOf(served: ServedApp, id: string): Trigger {
  const trigger = served.compiled.definition.triggers.find((tr) => tr.trigger.id === id);
  if (!trigger) throw new Error(`no trigger ${id}`);
  return trigger;
}

/** Rows of a model's table (all of them, no rules). */
export async function rowCount(t: TestPlatform, served: ServedApp, modelId: string): Promise<number> {
  const model = served.compiled.modelsById.get(modelId)!;
  const result = await sql<{ n: number }>`select count(*)::int as n from ${ident(served.compiled.schema, model.table)}`.execute(t.platform.db.kysely);
  return Number(result.rows[0].n);
}

export async function outboxEvents(t: TestPlatform, applicationId: string, name: string): Promise<Array<{ payload: Record<string, unknown> }>> {
  const result = await sql<{ payload: Record<string, unknown> | string }>`
    select payload from appbuilder.events where application_id = ${applicationId} and name = ${name} order by id`.execute(t.platform.db.kysely);
  return result.rows.map((row) => ({ payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload }));
}

/** Signs up an end user of the app; returns the token and the user record. */
export async function signup(t: TestPlatform, path: string, name: string): Promise<{ token: string; user: Record<string, unknown> & { id: string } }> {
  const email = `${name.toLowerCase()}-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const response = await fetch(`${t.baseUrl}${path}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, email, password: 'correct horse battery' }),
  });
  if (response.status !== 201) throw new Error(`signup answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { token: string; user: Record<string, unknown> & { id: string } };
}
