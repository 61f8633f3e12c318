// One test per effect of the catalogue (http.request has its own file, with a local server).
import { describe, expect, it } from 'vitest';
import { EFFECT_NAMES } from '../../src/definition/effect-catalogue.ts';
import { EFFECTS } from '../../src/runtime/actions/index.ts';
import { action, harness, run } from './support.ts';

const alice = { id: 'u1', name: 'Alice', email: 'a@example.com' };
const todos = [
  { id: 't1', title: 'One', status: 'open', user: 'u1' },
  { id: 't2', title: 'Two', status: 'open', user: 'u1' },
];

describe('effects', () => {
  it('has a module for every effect of the catalogue', () => {
    expect(EFFECT_NAMES.filter((name) => !EFFECTS.has(name))).toEqual([]);
  });

  it('data.get returns the record, bound params over literal ones', async () => {
    const h = harness({ ToDo: todos });
    const act = action(
      [{ actionEffectId: 'load', effect: 'data.get', params: { model: 'ToDo', id: 'nope' }, bindParams: { id: 'state.id' } }],
      { bindReturnValue: 'results.load.title' },
    );
    const record = await run(act, h, { initialState: { id: 't2' } });
    expect(record.status).toBe('succeeded');
    expect(record.result).toBe('Two');
    expect(record.steps[0]).toMatchObject({ actionEffectId: 'load', effect: 'data.get', output: todos[1] });
  });

  it('data.get of a missing record fails with 404', async () => {
    const act = action([{ actionEffectId: 'load', effect: 'data.get', params: { model: 'ToDo', id: 'missing' } }]);
    const record = await run(act, harness());
    expect(record.status).toBe('failed');
    expect(record.error).toMatchObject({ status: 404, code: 'not_found', effectId: 'load' });
  });

  it('data.find passes filter, sort, limit and offset to the port', async () => {
    const h = harness({ ToDo: todos });
    const act = action([
      {
        actionEffectId: 'list',
        effect: 'data.find',
        params: { model: 'ToDo', filter: "record.status == 'open'", sort: '-title', limit: 1, offset: 1 },
      },
    ], { bindReturnValue: 'results.list.map(t, t.id)' });
    const record = await run(act, h);
    expect(record.result).toEqual(['t2']);
    expect(h.data.finds[0]).toEqual({
      model: 'ToDo',
      options: { filter: "record.status == 'open'", sort: '-title', limit: 1, offset: 1 },
    });
  });

  it('data.count returns a number', async () => {
    const act = action([{ actionEffectId: 'n', effect: 'data.count', params: { model: 'ToDo' } }], {
      bindReturnValue: 'results.n + 1.0',
    });
    expect((await run(act, harness({ ToDo: todos }))).result).toBe(3);
  });

  it('data.create, data.update and data.delete write through the port', async () => {
    const h = harness({ User: [alice] });
    const act = action(
      [
        { actionEffectId: 'make', effect: 'data.create', params: { model: 'ToDo', values: { title: 'New', status: 'open' } }, next: 'done' },
        {
          actionEffectId: 'done',
          effect: 'data.update',
          params: { model: 'ToDo', values: { status: 'done' } },
          bindParams: { id: 'results.make.id' },
          next: 'drop',
        },
        { actionEffectId: 'drop', effect: 'data.delete', params: { model: 'ToDo' }, bindParams: { id: 'results.make.id' } },
      ],
      { bindReturnValue: 'results.drop.status' },
    );
    const record = await run(act, h);
    expect(record.status).toBe('succeeded');
    expect(record.result).toBe('done');
    expect(h.data.writes.map((w) => w.op)).toEqual(['create', 'update', 'delete']);
  });

  it('data.update and data.delete of a missing record fail with 404', async () => {
    for (const effect of ['data.update', 'data.delete']) {
      const params = effect === 'data.update' ? { model: 'ToDo', id: 'x', values: {} } : { model: 'ToDo', id: 'x' };
      const record = await run(action([{ actionEffectId: 'w', effect, params }]), harness());
      expect(record.error).toMatchObject({ status: 404, effectId: 'w' });
    }
  });

  it('flow.if continues at next when true, at else when false, and ends without else', async () => {
    const effects = (withElse: boolean) => [
      { actionEffectId: 'check', effect: 'flow.if', params: withElse ? { else: 'no' } : {}, bindParams: { condition: 'state.ok' }, next: 'yes' },
      { actionEffectId: 'yes', effect: 'flow.set', params: { name: 'path', value: 'yes' } },
      { actionEffectId: 'no', effect: 'flow.set', params: { name: 'path', value: 'no' } },
    ];
    const h = harness();
    const path = async (ok: boolean, withElse: boolean) => {
      const record = await run(action(effects(withElse), { bindReturnValue: "has(state.path) ? state.path : 'ended'" }), h, { initialState: { ok } });
      return record.result;
    };
    expect(await path(true, true)).toBe('yes');
    expect(await path(false, true)).toBe('no');
    expect(await path(false, false)).toBe('ended');
  });

  it('flow.forEach runs the body per item with state.item and collects the outputs', async () => {
    const act = action(
      [
        { actionEffectId: 'loop', effect: 'flow.forEach', params: { body: 'double' }, bindParams: { items: '[1, 2, 3]' } },
        { actionEffectId: 'double', effect: 'flow.set', params: { name: 'last' }, bindParams: { value: 'state.item * 2.0' } },
      ],
      { bindReturnValue: 'results.loop' },
    );
    const record = await run(act, harness());
    expect(record.result).toEqual([2, 4, 6]);
    expect(record.steps.map((s) => s.actionEffectId)).toEqual(['loop', 'double', 'double', 'double']);
  });

  it('flow.forEach names the item with `as`', async () => {
    const act = action(
      [
        { actionEffectId: 'loop', effect: 'flow.forEach', params: { body: 'greet', as: 'who', items: ['Ann', 'Bo'] } },
        { actionEffectId: 'greet', effect: 'flow.set', params: { name: 'x' }, bindParams: { value: "'Hi ' + state.who" } },
      ],
      { bindReturnValue: 'results.loop' },
    );
    expect((await run(act, harness())).result).toEqual(['Hi Ann', 'Hi Bo']);
  });

  it('flow.set writes to the state', async () => {
    const act = action([{ actionEffectId: 's', effect: 'flow.set', params: { name: 'greeting' }, bindParams: { value: "'hello ' + env.WHO" } }], {
      bindReturnValue: 'state.greeting',
    });
    expect((await run(act, harness(), { env: { WHO: 'world' } })).result).toBe('hello world');
  });

  it('flow.fail fails the run with its status, message and code', async () => {
    const act = action([{ actionEffectId: 'no', effect: 'flow.fail', params: { status: 409, message: 'Already done.', code: 'already_done' } }]);
    const record = await run(act, harness());
    expect(record).toMatchObject({ status: 'failed', result: null });
    expect(record.error).toEqual({ message: 'Already done.', code: 'already_done', effectId: 'no', status: 409 });
  });

  it('flow.return ends the run with its HTTP response, skipping next', async () => {
    const act = action([
      {
        actionEffectId: 'ret',
        effect: 'flow.return',
        params: { status: 201, headers: { 'x-kind': 'test' } },
        bindParams: { body: "{'ok': true}" },
        next: 'never',
      },
      { actionEffectId: 'never', effect: 'flow.fail', params: { message: 'not reached' } },
    ]);
    const record = await run(act, harness());
    expect(record.status).toBe('succeeded');
    expect(record.response).toEqual({ status: 201, headers: { 'x-kind': 'test' }, body: { ok: true } });
    expect(record.result).toEqual({ ok: true });
    expect(record.steps).toHaveLength(1);
  });

  it('flow.return without a body answers with bindReturnValue; inside a loop it stops the loop', async () => {
    const act = action(
      [
        { actionEffectId: 'loop', effect: 'flow.forEach', params: { body: 'ret', items: [1, 2, 3] } },
        { actionEffectId: 'ret', effect: 'flow.return', params: { status: 202 } },
      ],
      { bindReturnValue: 'state.item' },
    );
    const record = await run(act, harness());
    expect(record.response).toEqual({ status: 202, headers: {}, body: 1 });
    expect(record.steps.map((s) => s.actionEffectId)).toEqual(['loop', 'ret']);
  });

  it('event.emit hands the event to the port (the caller delivers it after commit)', async () => {
    const h = harness();
    const act = action([
      { actionEffectId: 'e', effect: 'event.emit', params: { eventName: 'ToDo.reminded' }, bindParams: { payload: "{'id': state.id}" } },
    ]);
    const record = await run(act, h, { initialState: { id: 't1' } });
    expect(record.status).toBe('succeeded');
    expect(h.events).toEqual([{ name: 'ToDo.reminded', payload: { id: 't1' } }]);
  });

  it('refuses params that do not match the catalogue schema', async () => {
    const act = action([{ actionEffectId: 'load', effect: 'data.get', params: { model: 'ToDo' }, bindParams: { id: 'state.missing' } }]);
    const record = await run(act, harness(), { initialState: { missing: 42 } });
    expect(record.error).toMatchObject({ code: 'invalid_params', status: 400, effectId: 'load' });
  });

  it('secrets are readable only where http.request sends them: not in other effects, not derived, not in bindReturnValue', async () => {
    // A definition that skipped the check at save (saved before the rule) is refused when the effect runs.
    for (const value of ['secrets.API_KEY.size()', 'secrets.API_KEY']) {
      const act = action([{ actionEffectId: 's', effect: 'flow.set', params: { name: 'k' }, bindParams: { value } }], { bindReturnValue: 'state.k' });
      const record = await run(act, harness(), { secrets: { API_KEY: 'abcd' } });
      expect(record.status).toBe('failed');
      expect(record.error).toMatchObject({ code: 'secret_placement', effectId: 's' });
      expect(record.error?.message).toContain('secrets.NAME may appear only as a whole value');
    }
    const leak = action([{ actionEffectId: 's', effect: 'flow.set', params: { name: 'k', value: 1 } }], { bindReturnValue: 'secrets.API_KEY' });
    const record = await run(leak, harness(), { secrets: { API_KEY: 'abcd' } });
    expect(record.status).toBe('failed');
    expect(record.error?.code).toBe('return_value_error');
  });
});
