// `defaultValue` (DESIGN §4) at save: a literal is checked against its field, `{"literal": …}`
// unwrapped first; `{"expression": …}` is type-checked in the `default` scope (auth, now) against
// the field's type, each problem at its JSON pointer (409).
import { describe, expect, it } from 'vitest';
import { Problem, type ProblemDetail } from '../../src/errors.ts';
import { validateDefinition } from '../../src/definition/validate.ts';
import { defaultExpression, describeDefaultExpression, fieldDefault, literalDefault } from '../../src/definition/default-value.ts';
import type { AppDefinition, Field } from '../../src/definition/schema.ts';
import { todo } from './fixtures/index.ts';

/** Problems of the to-do example with the ToDo field `name`'s defaultValue set, checked by the real expression module. */
function problemsWith(name: string, defaultValue: unknown, extra?: Partial<Field>): ProblemDetail[] {
  const def: AppDefinition = todo();
  const field = def.models[0].fields.find((f) => f.name === name)!;
  Object.assign(field, extra, { defaultValue });
  try {
    validateDefinition(def);
    return [];
  } catch (error) {
    if (error instanceof Problem && error.status === 409) return error.errors;
    throw error;
  }
}

const at = (name: string, member = 'defaultValue') => `/models/0/fields/${todo().models[0].fields.findIndex((f) => f.name === name)}/${member}`;

describe('reading a defaultValue', () => {
  it('tells an expression from a literal, and unwraps {"literal": …}', () => {
    expect(fieldDefault(undefined)).toBeUndefined();
    expect(fieldDefault('open')).toEqual({ kind: 'literal', value: 'open' });
    expect(fieldDefault({ expression: 'auth.id' })).toEqual({ kind: 'expression', source: 'auth.id' });
    expect(fieldDefault({ literal: { expression: 'x' } })).toEqual({ kind: 'literal', value: { expression: 'x' } });
    // Only a lone member makes the object special.
    expect(fieldDefault({ expression: 'x', street: 'Main' })).toEqual({ kind: 'literal', value: { expression: 'x', street: 'Main' } });
    expect(literalDefault({ expression: 'now' })).toBeUndefined();
    expect(defaultExpression({ expression: 'now' })).toBe('now');
    expect(describeDefaultExpression('auth.id')).toBe('defaults to the caller (auth.id)');
    expect(describeDefaultExpression('now')).toBe('defaults to now');
  });
});

describe('a defaultValue at save', () => {
  it('accepts the example (user → auth.id) and expressions of the right type', () => {
    expect(problemsWith('user', { expression: 'auth.id' })).toEqual([]);
    expect(problemsWith('deadline', { expression: 'now' })).toEqual([]);
    expect(problemsWith('title', { expression: "'Untitled'" })).toEqual([]);
    expect(problemsWith('status', { literal: 'done' })).toEqual([]);
  });
  it('refuses an expression of the wrong type, one that does not compile, and one that is not a string', () => {
    expect(problemsWith('user', { expression: 'now' })).toEqual([
      { path: at('user', 'defaultValue/expression'), message: expect.stringMatching(/returns google\.protobuf\.Timestamp, but the field user needs the id/) },
    ]);
    expect(problemsWith('deadline', { expression: 'true' })).toEqual([
      { path: at('deadline', 'defaultValue/expression'), message: expect.stringMatching(/returns bool/) },
    ]);
    expect(problemsWith('title', { expression: 'record.title' })).toEqual([
      { path: at('title', 'defaultValue/expression'), message: expect.stringMatching(/^Invalid default expression/) },
    ]);
    expect(problemsWith('title', { expression: 5 })).toEqual([
      { path: at('title', 'defaultValue/expression'), message: expect.stringMatching(/non-empty string/) },
    ]);
  });
  it('checks a {"literal": …} like any literal', () => {
    expect(problemsWith('status', { literal: 'later' })).toEqual([{ path: at('status'), message: expect.stringMatching(/enum/) }]);
  });
});
