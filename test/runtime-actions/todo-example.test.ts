// The to-do example's two actions (examples/todo.app.json) against the in-memory DataPort.
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/definition/schema.ts';
import { harness, run, todo } from './support.ts';

const byId = (id: string): Action => {
  const found = todo.actions.find((a) => a.id === id);
  if (!found) throw new Error(`example has no action ${id}`);
  return found;
};
const completeTodo = byId('urn:svc:action:complete-todo');
const welcome = byId('urn:svc:action:welcome');

const alice = { id: 'u1', name: 'Alice', email: 'alice@example.com', todos: ['t1'] };
const bob = { id: 'u2', name: 'Bob', email: 'bob@example.com', todos: [] };
const seed = () => ({ User: [alice, bob], ToDo: [{ id: 't1', title: 'Write tests', status: 'open', user: 'u1' }] });

describe('to-do example', () => {
  it('complete-todo: the owner marks the to-do done', async () => {
    const h = harness(seed());
    const record = await run(completeTodo, h, {
      initialState: { todoId: 't1' },
      auth: alice,
      caller: { kind: 'user', user: alice },
      request: { method: 'POST', path: '/toDos/t1/complete', params: { id: 't1' } },
    });
    expect(record.status).toBe('succeeded');
    expect(record.result).toMatchObject({ id: 't1', status: 'done' });
    expect(record.steps.map((s) => s.actionEffectId)).toEqual(['load', 'check', 'save']);
    expect(h.data.writes).toEqual([{ op: 'update', model: 'ToDo', id: 't1', values: { status: 'done' } }]);
  });

  it('complete-todo: anyone else gets flow.fail 403 and nothing is written', async () => {
    const h = harness(seed());
    const record = await run(completeTodo, h, {
      initialState: { todoId: 't1' },
      auth: bob,
      caller: { kind: 'user', user: bob },
    });
    expect(record.status).toBe('failed');
    expect(record.error).toEqual({
      message: 'Only the owner can complete a to-do.',
      code: 'action_failed',
      effectId: 'forbidden',
      status: 403,
    });
    expect(record.steps.map((s) => s.actionEffectId)).toEqual(['load', 'check', 'forbidden']);
    expect(h.data.writes).toEqual([]);
  });

  it('complete-todo: an unknown to-do is a 404 from data.get', async () => {
    const record = await run(completeTodo, harness(seed()), { initialState: { todoId: 'nope' }, auth: alice });
    expect(record.error).toMatchObject({ status: 404, effectId: 'load' });
  });

  it('welcome: builds the record map from event.payload.name and returns the new id', async () => {
    const h = harness(seed());
    const record = await run(welcome, h, {
      event: { name: 'User.created', payload: { id: 'u3', name: 'Cleo', email: 'cleo@example.com' } },
    });
    expect(record.status).toBe('succeeded');
    expect(h.data.writes).toHaveLength(1);
    const created = h.data.writes[0];
    // bindParams.values overrides params.values as a whole.
    expect(created).toMatchObject({
      op: 'create',
      model: 'ToDo',
      values: { title: 'Welcome, Cleo! Add your first to-do.', status: 'open', user: 'u3' },
    });
    expect(record.result).toBe(created.id);
  });
});
