/**
 * Attempts to reach JavaScript internals from an expression: prototype members
 * on dynamic input (`request.body`), `__proto__` keys in map literals and in
 * JSON input, and the classic `constructor.constructor('return process')()`.
 * Each is refused at compile time, fails at evaluation with "No such key", or
 * yields plain data; none returns a function, a prototype or the process.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { compile, evaluate, type EvaluationResult, type ExpressionContext } from '../../src/expressions/index.ts';
import { ctx, todoRule } from './fixtures.ts';

const initialState = ctx('initialState');
const effect = ctx('effect');

function run(source: string, c: ExpressionContext, vars: Record<string, unknown> = {}): EvaluationResult {
  const compiled = compile(source, c);
  if (!compiled.ok) throw new Error(`${source}: ${compiled.message}`);
  return evaluate(compiled.compiled, vars);
}

const body = (value: unknown) => ({ request: { method: 'POST', path: '/x', params: {}, query: {}, headers: {}, body: value } });

afterEach(() => {
  // Nothing ever lands on the shared prototype.
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('polluted');
});

describe('escape attempts on dynamic input', () => {
  it.each([
    ['request.body.__proto__', '__proto__'],
    ["request.body['__proto__']", '__proto__'],
    ["request.body['constructor']", 'constructor'],
    ['request.body.constructor', 'constructor'],
    ['request.body.toString', 'toString'],
    ["request.body['hasOwnProperty']", 'hasOwnProperty'],
  ])('%s is no such key', (source, key) => {
    expect(run(source, initialState, body({ a: 1 }))).toEqual({ ok: false, code: 'evaluation_error', message: `No such key: ${key}` });
  });

  it('has() and `in` see only the own members of the input', () => {
    expect(run('has(request.body.__proto__)', initialState, body({ a: 1 }))).toEqual({ ok: true, value: false });
    expect(run('has(request.body.constructor)', initialState, body({ a: 1 }))).toEqual({ ok: true, value: false });
    expect(run("'constructor' in request.body", initialState, body({ a: 1 }))).toEqual({ ok: true, value: false });
    expect(run("'a' in request.body", initialState, body({ a: 1 }))).toEqual({ ok: true, value: true });
  });

  it('reads a `__proto__` member of JSON input as data, and returns it as data', () => {
    const input = JSON.parse('{"a": 1, "__proto__": {"polluted": 1}}') as unknown;
    expect(run('request.body.__proto__.polluted', initialState, body(input))).toEqual({ ok: true, value: 1 });
    const echoed = run('request.body', initialState, body(input));
    expect(echoed.ok).toBe(true);
    const value = (echoed as { value: Record<string, unknown> }).value;
    // An own member, not the prototype of the result.
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(value.polluted).toBeUndefined();
    expect(Object.keys(value)).toEqual(['a', '__proto__']);
    expect(JSON.stringify(value)).toBe('{"a":1,"__proto__":{"polluted":1}}');
  });
});

describe('escape attempts in map literals', () => {
  it("{'__proto__': 1} is a plain empty map (the library drops the key), not a prototype change", () => {
    const result = run("{'__proto__': 1}", effect);
    expect(result).toEqual({ ok: true, value: {} });
    expect(Object.getPrototypeOf((result as { value: object }).value)).toBe(Object.prototype);
  });

  it("{'__proto__': {...}} cannot lend members to the map", () => {
    const result = run("{'__proto__': {'polluted': true}, 'b': 2}", effect);
    expect(result).toEqual({ ok: true, value: { b: 2 } });
    expect((result as { value: Record<string, unknown> }).value.polluted).toBeUndefined();
    expect(run("{'__proto__': {'polluted': true}}.polluted", effect)).toEqual({ ok: false, code: 'evaluation_error', message: 'No such key: polluted' });
    expect(run("{'__proto__': {'polluted': true}}['__proto__']", effect)).toEqual({ ok: false, code: 'evaluation_error', message: 'No such key: __proto__' });
    expect(run("size({'__proto__': 1, 'b': 2})", effect)).toEqual({ ok: true, value: 1 });
  });
});

describe('constructor chains', () => {
  it.each([
    // CEL cannot call the result of a call: a syntax error at the second `(`.
    ["record.constructor.constructor('return process')()", todoRule, /Unexpected character: '\('/, 48],
    // Without the call: `constructor` is not a field of the model.
    ["record.constructor.constructor('return process')", todoRule, /No such key: constructor/, 7],
    // On dynamic input: no function named `constructor` exists.
    ["request.body.constructor.constructor('return process')", initialState, /no matching overload for 'dyn\.constructor\(string\)'/, 0],
    ["'abc'.constructor", initialState, /Cannot index type 'string'/, 6],
  ] as const)('%s is refused at compile time', (source, context, message, position) => {
    const result = compile(source, context);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toMatch(message);
      expect(result.position).toBe(position);
    }
  });
});
