// Error routing happens once, in the engine, for every effect alike: the effect's onError, else
// the action's onError, else the run fails (and the caller rolls the transaction back).
import { describe, expect, it } from 'vitest';
import { action, harness, run } from './support.ts';

const missing = { actionEffectId: 'load', effect: 'data.get', params: { model: 'ToDo', id: 'missing' } };

describe('error routing', () => {
  it("goes to the effect's own onError, which sees `error`", async () => {
    const act = action(
      [
        { ...missing, onError: { nextId: 'handle' }, next: 'after' },
        {
          actionEffectId: 'handle',
          effect: 'flow.set',
          params: { name: 'seen' },
          bindParams: { value: "error.code + ' ' + string(error.status) + ' ' + error.effectId" },
        },
        { actionEffectId: 'after', effect: 'flow.set', params: { name: 'after', value: true } },
      ],
      { bindReturnValue: 'state' },
    );
    const record = await run(act, harness());
    expect(record.status).toBe('succeeded');
    // Without continueOriginalFlow the handler chain replaces the rest of the flow.
    expect(record.result).toEqual({ seen: 'not_found 404 load' });
    expect(record.steps.map((s) => [s.actionEffectId, s.error?.code ?? null])).toEqual([
      ['load', 'not_found'],
      ['handle', null],
    ]);
  });

  it("falls back to the action's onError", async () => {
    const act = action(
      [
        { actionEffectId: 'first', effect: 'flow.set', params: { name: 'a', value: 1 }, next: 'load' },
        missing,
        { actionEffectId: 'handle', effect: 'flow.return', params: { status: 404 }, bindParams: { body: "{'message': error.message}" } },
      ],
      { onError: { nextId: 'handle' } },
    );
    const record = await run(act, harness());
    expect(record.status).toBe('succeeded');
    expect(record.response).toEqual({ status: 404, headers: {}, body: { message: "No ToDo record with id 'missing'." } });
  });

  it('prefers the effect handler over the action handler', async () => {
    const act = action(
      [
        { ...missing, onError: { nextId: 'own' } },
        { actionEffectId: 'own', effect: 'flow.set', params: { name: 'by', value: 'effect' } },
        { actionEffectId: 'general', effect: 'flow.set', params: { name: 'by', value: 'action' } },
      ],
      { onError: { nextId: 'general' }, bindReturnValue: 'state.by' },
    );
    expect((await run(act, harness())).result).toBe('effect');
  });

  it('continueOriginalFlow resumes at the failed effect’s next once the handler chain ends', async () => {
    const act = action(
      [
        { ...missing, onError: { nextId: 'h1', continueOriginalFlow: true }, next: 'after' },
        { actionEffectId: 'h1', effect: 'flow.set', params: { name: 'h1', value: true }, next: 'h2' },
        { actionEffectId: 'h2', effect: 'flow.set', params: { name: 'h2' }, bindParams: { value: 'error.status' } },
        { actionEffectId: 'after', effect: 'flow.set', params: { name: 'after' }, bindParams: { value: 'error == null' } },
      ],
      { bindReturnValue: 'state' },
    );
    const record = await run(act, harness());
    expect(record.steps.map((s) => s.actionEffectId)).toEqual(['load', 'h1', 'h2', 'after']);
    // `error` is visible to the handlers only.
    expect(record.result).toEqual({ h1: true, h2: 404, after: true });
  });

  it('an unhandled failure fails the run after two writes, so the caller can roll them back', async () => {
    const h = harness();
    const act = action([
      { actionEffectId: 'w1', effect: 'data.create', params: { model: 'ToDo', values: { title: 'a' } }, next: 'w2' },
      { actionEffectId: 'w2', effect: 'data.create', params: { model: 'ToDo', values: { title: 'b' } }, next: 'boom' },
      { actionEffectId: 'boom', effect: 'flow.fail', params: { status: 422, message: 'Nope.' }, next: 'w3' },
      { actionEffectId: 'w3', effect: 'data.create', params: { model: 'ToDo', values: { title: 'c' } } },
    ]);
    const record = await run(act, h);
    expect(h.data.writes).toHaveLength(2);
    expect(record.status).toBe('failed');
    expect(record.result).toBeNull();
    expect(record.error).toEqual({ message: 'Nope.', code: 'action_failed', effectId: 'boom', status: 422 });
    expect(record.steps.at(-1)).toMatchObject({ actionEffectId: 'boom', error: { status: 422 } });
  });

  it("a failure inside the action's handler is not routed to it again", async () => {
    const act = action(
      [missing, { actionEffectId: 'handle', effect: 'flow.fail', params: { status: 503, message: 'Handler failed too.' } }],
      { onError: { nextId: 'handle' } },
    );
    const record = await run(act, harness());
    expect(record.status).toBe('failed');
    expect(record.error).toMatchObject({ effectId: 'handle', status: 503 });
    expect(record.steps).toHaveLength(2);
  });

  it('routes expression failures in bindParams like effect failures', async () => {
    const act = action([
      { actionEffectId: 'bad', effect: 'flow.set', params: { name: 'x' }, bindParams: { value: 'state.nothing.deeper' }, onError: { nextId: 'h' } },
      { actionEffectId: 'h', effect: 'flow.set', params: { name: 'code' }, bindParams: { value: 'error.code' } },
    ], { bindReturnValue: 'state.code' });
    expect((await run(act, harness())).result).toBe('evaluation_error');
  });

  it('a failing loop body goes to the body effect’s handler and the loop goes on', async () => {
    const act = action(
      [
        { actionEffectId: 'loop', effect: 'flow.forEach', params: { body: 'load' }, bindParams: { items: "['t1', 'zz']" } },
        { actionEffectId: 'load', effect: 'data.get', params: { model: 'ToDo' }, bindParams: { id: 'state.item' }, onError: { nextId: 'skip' } },
        { actionEffectId: 'skip', effect: 'flow.set', params: { name: 'skipped' }, bindParams: { value: 'state.item' } },
      ],
      { bindReturnValue: 'results.loop' },
    );
    const record = await run(act, harness({ ToDo: [{ id: 't1', title: 'One' }] }));
    expect(record.result).toEqual([{ id: 't1', title: 'One' }, 'zz']);
  });
});
