import { describe, expect, it } from 'vitest';
import { Problem } from '../../src/errors.ts';
import { checkConsistency } from '../../src/definition/consistency.ts';
import { collectExpressions, type ExpressionSite } from '../../src/definition/consistency/expression-sites.ts';
import type { ExpressionChecker } from '../../src/definition/consistency/expressions.ts';
import { validateDefinition } from '../../src/definition/validate.ts';
import { todo } from './fixtures/index.ts';

describe('collectExpressions', () => {
  it('finds every expression of the example with its pointer, scope and model', () => {
    const def = todo();
    def.models[0].fields[0].computed = "record.title + '!'";
    def.models[0].fields[0].accessControl.rules.push({ access: 'deny', criteria: 'auth == null' });
    if (def.triggers[0].trigger.type === 'http') def.triggers[0].trigger.matchSelectors = ["request.headers['x-v'] == '2'"];
    def.actions[1].effects.push({ actionEffectId: 'n', effect: 'data.count', params: { model: 'ToDo', filter: "record.status == 'open'" } });
    const sites = collectExpressions(def).map((s) => [s.path, s.scope, s.model?.name]);
    expect(sites).toEqual([
      ['/models/0/accessControl/rules/0/criteria', 'rule', 'ToDo'],
      ['/models/0/fields/0/accessControl/rules/0/criteria', 'rule', 'ToDo'],
      ['/models/0/fields/0/computed', 'computed', 'ToDo'],
      ['/models/0/fields/4/defaultValue/expression', 'default', 'ToDo'],
      ['/models/1/accessControl/rules/0/criteria', 'rule', 'User'],
      ['/triggers/0/validation/0', 'validation', undefined],
      ['/triggers/0/trigger/matchSelectors/0', 'matchSelector', undefined],
      ['/triggers/0/initialState/todoId', 'initialState', undefined],
      ['/triggers/1/validation/0', 'validation', undefined],
      ['/actions/0/effects/0/bindParams/id', 'effect', undefined],
      ['/actions/0/effects/1/bindParams/condition', 'effect', undefined],
      ['/actions/0/effects/2/bindParams/id', 'effect', undefined],
      ['/actions/0/bindReturnValue', 'returnValue', undefined],
      ['/actions/1/effects/0/bindParams/values', 'effect', undefined],
      ['/actions/1/effects/1/params/filter', 'filter', 'ToDo'],
      ['/actions/1/bindReturnValue', 'returnValue', undefined],
    ]);
  });
});

describe('expression problems', () => {
  const rejecting = (bad: string, untranslatable = ''): ExpressionChecker => ({
    check: (site: ExpressionSite) => (site.source === bad ? { ok: false, message: 'no such field' } : { ok: true }),
    translatable: (site: ExpressionSite) => (site.source === untranslatable ? { ok: false, message: 'uses a function' } : { ok: true }),
  });

  it('are reported at the expression pointer as a 409', () => {
    const def = todo();
    def.triggers[0].validation = ['auth != null', 'request.params.nope'];
    try {
      validateDefinition(def, { expressions: rejecting('request.params.nope') });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(Problem);
      expect((error as Problem).status).toBe(409);
      expect((error as Problem).errors).toEqual([
        { path: '/triggers/0/validation/1', message: 'Invalid validation expression: no such field' },
      ]);
    }
  });

  it('include access rules that cannot be translated to SQL', () => {
    const rule = 'auth != null && record.user == auth.id';
    expect(checkConsistency(todo(), { expressions: rejecting('', rule) })).toEqual([
      { path: '/models/0/accessControl/rules/0/criteria', message: 'The access rule cannot be translated to SQL: uses a function' },
    ]);
  });

  it('turn a checker that throws into a problem, not a crash', () => {
    const throwing: ExpressionChecker = {
      check: () => {
        throw new Error('boom');
      },
      translatable: () => ({ ok: true }),
    };
    const problems = checkConsistency(todo(), { expressions: throwing });
    expect(problems.length).toBe(collectExpressions(todo()).length);
    expect(problems[0].message).toMatch(/boom/);
  });
});

describe('with the real expression module', () => {
  const errorsOf = (mutate: (d: ReturnType<typeof todo>) => void) => {
    const def = todo();
    mutate(def);
    return checkConsistency(def);
  };

  it('accepts the example', () => {
    expect(errorsOf(() => {})).toEqual([]);
  });
  it('refuses a rule reading a field the model lacks', () => {
    expect(errorsOf((d) => (d.models[0].accessControl.rules[0].criteria = 'record.nope == 1'))).toEqual([
      { path: '/models/0/accessControl/rules/0/criteria', message: expect.stringMatching(/^Invalid rule expression: .*nope/) },
    ]);
  });
  it('refuses a rule that cannot be translated to SQL (409 "cannot be translated to SQL")', () => {
    const def = todo();
    def.models[0].fields[0].accessControl.rules = [{ access: 'allow', criteria: "record.title + 'x' == 'yx'" }];
    try {
      validateDefinition(def);
      expect.unreachable();
    } catch (error) {
      expect((error as Problem).status).toBe(409);
      expect((error as Problem).errors).toEqual([
        { path: '/models/0/fields/0/accessControl/rules/0/criteria', message: expect.stringContaining('cannot be translated to SQL') },
      ]);
    }
  });
  it('checks result types per scope and syntax everywhere', () => {
    const problems = errorsOf((d) => {
      d.triggers[0].validation = ["'yes'"];
      d.actions[0].bindReturnValue = 'results.save +';
      d.triggers[0].initialState.todoId = 'request.params.id';
      d.models[0].fields[1].computed = "record.title + ' ' + record.description";
    });
    expect(problems.map((p) => p.path)).toEqual(['/triggers/0/validation/0', '/actions/0/bindReturnValue']);
    expect(problems[0].message).toMatch(/boolean/);
  });
  it("does not count 'auth' inside a string literal as using authentication", () => {
    const problems = errorsOf((d) => {
      d.models[1].fields.splice(1, 1);
      for (const field of d.models[0].fields) delete field.defaultValue; // `user` defaults to auth.id
      d.models.forEach((m) => (m.accessControl = { rules: [{ access: 'allow', criteria: "'by auth' != ''" }] }));
      d.triggers[0].isPublic = true;
      d.triggers[0].validation = [];
      d.actions[0].effects[1].bindParams = { condition: 'results.load.user != null' };
    });
    expect(problems).toEqual([]);
  });
});
