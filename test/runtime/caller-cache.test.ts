// The per-caller SQL cache is bounded (issue 28, nothing cached without bound): past its number of
// callers it starts again, so a value is built anew; below it, each caller's value is built once.
import { describe, expect, it } from 'vitest';
import { CallerCache } from '../../src/runtime/caller-cache.ts';
import type { CompiledModel } from '../../src/runtime/compiled-app.ts';

const model = {} as CompiledModel;

describe('CallerCache', () => {
  it('builds a value once per caller, model and key', () => {
    const cache = new CallerCache<number>(3);
    let builds = 0;
    const caller = {};
    expect(cache.get(caller, model, 'k', () => ++builds)).toBe(1);
    expect(cache.get(caller, model, 'k', () => ++builds)).toBe(1);
    expect(cache.get(caller, model, 'other', () => ++builds)).toBe(2);
    expect(cache.get({}, model, 'k', () => ++builds)).toBe(3);
  });

  it('keeps at most its number of callers: the next one starts it again', () => {
    const cache = new CallerCache<string>(3);
    const callers = [{}, {}, {}];
    for (const [i, caller] of callers.entries()) cache.get(caller, model, 'k', () => `built ${i}`);
    // All three kept.
    for (const caller of callers) expect(cache.get(caller, model, 'k', () => 'again')).not.toBe('again');
    // A fourth caller: the cache starts again, so the first caller's value is built anew.
    cache.get({}, model, 'k', () => 'fourth');
    expect(cache.get(callers[0], model, 'k', () => 'again')).toBe('again');
  });
});
