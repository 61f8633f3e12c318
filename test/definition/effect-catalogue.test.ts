import { describe, expect, it } from 'vitest';
import {
  EFFECT_NAMES,
  checkEffectParams,
  effectParamsSchema,
  effectReferences,
} from '../../src/definition/effect-catalogue.ts';

describe('the catalogue', () => {
  it('names the effects of DESIGN §7', () => {
    expect([...EFFECT_NAMES].sort()).toEqual(
      [
        'data.count', 'data.create', 'data.delete', 'data.find', 'data.get', 'data.update',
        'email.send', 'event.emit', 'flow.fail', 'flow.forEach', 'flow.if', 'flow.return', 'flow.set', 'http.request',
      ].sort(),
    );
    expect(effectParamsSchema('data.get')?.required).toEqual(['model', 'id']);
    expect(effectParamsSchema('nope')).toBeUndefined();
  });
});

describe('checkEffectParams', () => {
  it('accepts required params from params or bindParams', () => {
    expect(checkEffectParams({ effect: 'data.get', params: { model: 'ToDo' }, bindParams: { id: 'state.todoId' } })).toEqual([]);
    expect(checkEffectParams({ effect: 'data.get', bindParams: { model: "'ToDo'", id: 'state.id' } })).toEqual([]);
  });
  it('reports a required param given nowhere', () => {
    expect(checkEffectParams({ effect: 'data.update', params: { model: 'ToDo' }, bindParams: { id: 'x' } })).toEqual([
      { path: '/params', message: expect.stringContaining("'values'") },
    ]);
  });
  it('checks literal types, with the path of the param', () => {
    const problems = checkEffectParams({
      effect: 'http.request',
      params: { method: 'FETCH', url: 'https://example.com', timeoutMs: -5, headers: { a: 1 } },
    });
    expect(problems.map((p) => p.path).sort()).toEqual(['/params/headers/a', '/params/method', '/params/timeoutMs']);
  });
  it('does not type-check a literal that a bind param overrides', () => {
    expect(checkEffectParams({ effect: 'flow.fail', params: { message: 3 }, bindParams: { message: "'x'" } })).toEqual([]);
  });
  it('refuses unknown param names in params and bindParams', () => {
    const problems = checkEffectParams({ effect: 'data.count', params: { model: 'ToDo', where: 'x' }, bindParams: { limit: '3' } });
    expect(problems.map((p) => p.path)).toEqual(['/params/where', '/bindParams/limit']);
  });
  it('reports an unknown effect at /effect', () => {
    expect(checkEffectParams({ effect: 'data.upsert' })).toEqual([{ path: '/effect', message: expect.stringContaining('data.upsert') }]);
  });
  it.each([
    ['data.find', { model: 'ToDo', filter: "record.status == 'open'", sort: '-deadline,title', limit: 10, offset: 0 }],
    ['data.count', { model: 'ToDo' }],
    ['data.create', { model: 'ToDo', values: { title: 'x' } }],
    ['data.delete', { model: 'ToDo', id: 'abc' }],
    ['flow.if', { condition: true, else: 'other' }],
    ['flow.forEach', { items: [1, 2], body: 'each', as: 'n' }],
    ['flow.set', { name: 'total', value: 3 }],
    ['flow.fail', { status: 404, message: 'Not here', code: 'missing' }],
    ['flow.return', { status: 201, headers: { location: '/x' }, body: { ok: true } }],
    ['http.request', { method: 'POST', url: 'https://example.com', body: {}, timeoutMs: 1000 }],
    ['event.emit', { eventName: 'ToDo.reminded', payload: { id: 1 } }],
  ])('accepts well-formed %s params', (effect, params) => {
    expect(checkEffectParams({ effect, params })).toEqual([]);
  });
  it.each([
    ['data.find', { model: 'ToDo', limit: 5000 }, '/params/limit'],
    ['data.find', { model: 'ToDo', sort: 'deadline desc' }, '/params/sort'],
    ['flow.fail', { status: 200, message: 'x' }, '/params/status'],
    ['flow.set', { name: 'has space', value: 1 }, '/params/name'],
    ['flow.if', { condition: 'yes' }, '/params/condition'],
    ['event.emit', { eventName: '' }, '/params/eventName'],
  ])('refuses bad %s params', (effect, params, path) => {
    expect(checkEffectParams({ effect, params }).map((p) => p.path)).toContain(path);
  });
});

describe('effectReferences', () => {
  it('lists next, onError, flow.if else and flow.forEach body', () => {
    expect(effectReferences({ actionEffectId: 'a', effect: 'flow.if', params: { else: 'b' }, next: 'c', onError: { nextId: 'd' } })).toEqual([
      'c',
      'd',
      'b',
    ]);
    expect(effectReferences({ actionEffectId: 'a', effect: 'flow.forEach', params: { items: [], body: 'e' } })).toEqual(['e']);
    expect(effectReferences({ actionEffectId: 'a', effect: 'data.get', params: { else: 'not-a-ref' } })).toEqual([]);
  });
});
