// Limits stop a run with a clear code; no handler can catch them (a handler could loop too).
import { describe, expect, it } from 'vitest';
import { compiledExpression } from '../../src/runtime/actions/expressions.ts';
import type { DataPort } from '../../src/runtime/actions/index.ts';
import { action, harness, run, todo } from './support.ts';

/** A flow.forEach whose body is the next level's flow.forEach, `levels` deep. */
function nestedLoops(levels: number) {
  const effects = [];
  for (let i = 1; i <= levels; i++) {
    const body = i === levels ? 'leaf' : `loop${i + 1}`;
    effects.push({ actionEffectId: `loop${i}`, effect: 'flow.forEach', params: { items: [1], body, as: `i${i}` } });
  }
  effects.push({ actionEffectId: 'leaf', effect: 'flow.set', params: { name: 'leaf', value: 'reached' } });
  return action(effects, { bindReturnValue: 'state.leaf' });
}

describe('limits', () => {
  it('stops an endless next loop at the step limit with step_limit', async () => {
    const act = action(
      [
        { actionEffectId: 'a', effect: 'flow.set', params: { name: 'x', value: 1 }, next: 'b' },
        { actionEffectId: 'b', effect: 'flow.set', params: { name: 'y', value: 2 }, next: 'a' },
      ],
      { onError: { nextId: 'a' } },
    );
    const record = await run(act, harness());
    expect(record.status).toBe('failed');
    expect(record.error?.code).toBe('step_limit');
    expect(record.error?.message).toMatch(/more than 1000 effects/);
    expect(record.steps).toHaveLength(1000);
  });

  it('honours a smaller step limit', async () => {
    const act = action([{ actionEffectId: 'a', effect: 'flow.set', params: { name: 'x', value: 1 }, next: 'a' }]);
    const record = await run(act, harness(), {}, { maxSteps: 10 });
    expect(record.error).toMatchObject({ code: 'step_limit', effectId: 'a' });
  });

  it('allows flow.forEach nested 3 deep and refuses a fourth level', async () => {
    expect((await run(nestedLoops(3), harness())).result).toBe('reached');
    const record = await run(nestedLoops(4), harness());
    expect(record.status).toBe('failed');
    expect(record.error).toMatchObject({ code: 'nesting_limit', effectId: 'loop4' });
  });

  it('stops a run past its wall time with time_limit', async () => {
    const h = harness();
    const hanging: DataPort = Object.assign(Object.create(h.data) as DataPort, { get: () => new Promise<never>(() => undefined) });
    // The handler is never reached: limits are not routed.
    const act = action([
      { actionEffectId: 'slow', effect: 'data.get', params: { model: 'ToDo', id: 'x' }, onError: { nextId: 'h' } },
      { actionEffectId: 'h', effect: 'flow.set', params: { name: 'caught', value: true } },
    ]);
    const record = await run(act, { ...h, ports: { ...h.ports, data: hanging } }, {}, { wallTimeMs: 50 });
    expect(record.status).toBe('failed');
    expect(record.error).toMatchObject({ code: 'time_limit', effectId: 'slow' });
    expect(record.steps.map((s) => s.actionEffectId)).toEqual(['slow']);
  });

  it('compiles each expression once per definition (keyed by definitionKey)', () => {
    const first = compiledExpression(todo, 'effect', "'probe'");
    // A copy with the same models has the same definitionKey, so it shares the compiled program.
    const copy = structuredClone({ models: todo.models, userModelId: todo.userModelId });
    expect(compiledExpression(copy, 'effect', "'probe'")).toBe(first);
    expect(compiledExpression(todo, 'returnValue', "'probe'")).not.toBe(first);
  });
});
