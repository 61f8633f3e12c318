import { describe, expect, it } from 'vitest';
import { compile, evaluate, toJson, type CompiledExpression, type ExpressionContext } from '../../src/expressions/index.ts';
import { ctx, PRODUCT, productRule, TODO, todoRule } from './fixtures.ts';

function program(source: string, c: ExpressionContext): CompiledExpression {
  const result = compile(source, c);
  if (!result.ok) throw new Error(result.message);
  return result.compiled;
}

const run = (source: string, c: ExpressionContext, vars: Record<string, unknown> = {}, options = {}) =>
  evaluate(program(source, c), vars, options);

describe('evaluate', () => {
  it('evaluates the example rule for anonymous and signed-in callers', () => {
    const rule = program('auth != null && record.user == auth.id', todoRule);
    const record = { id: 't1', title: 'A', user: 'u1' };
    expect(evaluate(rule, { record, auth: null })).toEqual({ ok: true, value: false });
    expect(evaluate(rule, { record })).toEqual({ ok: true, value: false });
    expect(evaluate(rule, { record, auth: { id: 'u1', name: 'Ann' } })).toEqual({ ok: true, value: true });
    expect(evaluate(rule, { record, auth: { id: 'u2' } })).toEqual({ ok: true, value: false });
  });

  it('converts ISO strings of timestamp fields so they compare with now', () => {
    const p = program('record.deadline < now', todoRule);
    const now = new Date('2024-06-01T00:00:00Z');
    expect(evaluate(p, { record: { deadline: '2024-01-01T00:00:00Z' }, now })).toEqual({ ok: true, value: true });
    expect(evaluate(p, { record: { deadline: '2025-01-01T00:00:00Z' }, now: now.toISOString() })).toEqual({ ok: true, value: false });
    // A missing deadline is null: comparing it is an error (a rule then denies).
    expect(evaluate(p, { record: {}, now })).toMatchObject({ ok: false, code: 'evaluation_error' });
    expect(run('record.deadline == null', todoRule, { record: {} })).toEqual({ ok: true, value: true });
  });

  it('does mixed int/double arithmetic with JS numbers', () => {
    const record = { price: 2.5, rating: 4 };
    expect(run('record.price * 2 == 5 && 2 * record.price == 5.0', productRule, { record })).toEqual({ ok: true, value: true });
    expect(run('record.price > 1 && record.rating >= 3', productRule, { record })).toEqual({ ok: true, value: true });
    expect(run('record.price + 1', ctx('computed', PRODUCT), { record })).toEqual({ ok: true, value: 3.5 });
    expect(run('1 - record.price', ctx('computed', PRODUCT), { record })).toEqual({ ok: true, value: -1.5 });
    expect(run('request.body.count + 1', ctx('initialState'), { request: { body: { count: 2 } } })).toEqual({ ok: true, value: 3 });
  });

  it('serialises BigInt, timestamps, durations and maps JSON-safe, nested', () => {
    const c = ctx('effect');
    expect(run('1 + 2', c)).toEqual({ ok: true, value: 3 });
    const r = run("{'n': 41 + 1, 'at': timestamp('2024-01-02T03:04:05Z'), 'list': [1, 2], 'nested': {'d': now}}", c, {
      now: new Date('2024-05-06T07:08:09.010Z'),
    });
    expect(r).toEqual({
      ok: true,
      value: { n: 42, at: '2024-01-02T03:04:05.000Z', list: [1, 2], nested: { d: '2024-05-06T07:08:09.010Z' } },
    });
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
    expect(run("duration('90s')", c)).toEqual({ ok: true, value: '90s' });
    expect(toJson(new Map<string, unknown>([['a', 1n], ['b', [new Date(0)]]]))).toEqual({ a: 1, b: ['1970-01-01T00:00:00.000Z'] });
  });

  it('builds maps of mixed value types (welcome effect of the example)', () => {
    const r = run(
      "{'title': 'Welcome, ' + event.payload.name + '! Add your first to-do.', 'status': 'open', 'done': false, 'user': event.payload.id}",
      ctx('effect'),
      { event: { name: 'User.created', payload: { id: 'u1', name: 'Ann' } } },
    );
    expect(r).toEqual({ ok: true, value: { title: 'Welcome, Ann! Add your first to-do.', status: 'open', done: false, user: 'u1' } });
  });

  it('returns records and auth as plain objects (null auth → null)', () => {
    const r = run('record', ctx('computed', TODO), { record: { id: 't1', title: 'A', deadline: '2024-01-01T00:00:00Z', user: { id: 'u1' } } });
    expect(r).toEqual({
      ok: true,
      value: { id: 't1', createdAt: null, updatedAt: null, title: 'A', description: null, deadline: '2024-01-01T00:00:00.000Z', status: null, user: 'u1' },
    });
    expect(run('auth', ctx('returnValue'))).toEqual({ ok: true, value: null });
    expect(run('auth.name', ctx('returnValue'), { auth: { id: 'u1', name: 'Ann' } })).toEqual({ ok: true, value: 'Ann' });
  });

  it('reads the example action expressions', () => {
    const vars = { results: { load: { id: 't1', user: 'u1' } }, auth: { id: 'u1' }, state: { todoId: 't1' } };
    expect(run('results.load.user == auth.id', ctx('effect'), vars)).toEqual({ ok: true, value: true });
    expect(run('state.todoId', ctx('effect'), vars)).toEqual({ ok: true, value: 't1' });
    expect(run('request.params.id', ctx('initialState'), { request: { params: { id: 'x' } } })).toEqual({ ok: true, value: 'x' });
    expect(run("event.payload.name != ''", ctx('validation'), { event: { payload: { name: '' } } })).toEqual({ ok: true, value: false });
  });

  it('reports a non-boolean result in a boolean scope', () => {
    expect(run('request.body.flag', ctx('validation'), { request: { body: { flag: 'yes' } } })).toMatchObject({ ok: false, code: 'result_type' });
  });
});

describe('budget', () => {
  const list = `[${Array.from({ length: 200 }, (_, i) => i).join(', ')}]`;
  const runaway = `${list}.map(x, ${list}.map(y, x * y))`;
  // A loaded machine must not let the wall-time budget fire first: these tests are about steps.
  const stepsOnly = { timeBudgetMs: 60_000 };

  it('stops a runaway nested comprehension with the step budget', () => {
    const t0 = performance.now();
    const r = run(runaway, ctx('effect'), {}, stepsOnly);
    expect(r).toMatchObject({ ok: false, code: 'step_budget' });
    expect(performance.now() - t0).toBeLessThan(2000);
  });

  it('lets the same program finish with a larger budget, and stops small budgets early', () => {
    const p = program(`${list}.map(x, x * 2)`, ctx('effect'));
    const big = evaluate(p, {}, { stepBudget: 1_000_000 });
    expect(big.ok && Array.isArray(big.value) && big.value.length).toBe(200);
    expect(evaluate(p, {}, { stepBudget: 100 })).toMatchObject({ ok: false, code: 'step_budget' });
  });

  it('is not swallowed by || or exists (errors there are otherwise absorbed)', () => {
    expect(run(`${runaway}.size() > 0 || true`, ctx('validation'), {}, stepsOnly)).toMatchObject({ ok: false, code: 'step_budget' });
    expect(run(`${list}.exists(x, ${list}.exists(y, x * y < 0))`, ctx('validation'), {}, { stepBudget: 5000 })).toMatchObject({
      ok: false,
      code: 'step_budget',
    });
  });

  it('bounds the size of strings built by doubling', () => {
    const s = `'${'x'.repeat(50)}'`;
    const src = `cel.bind(a, ${s} + ${s}, cel.bind(b, a + a + a + a + a + a + a + a + a + a, cel.bind(c, b + b + b + b + b + b + b + b + b + b, c + c + c + c + c + c + c + c + c + c + c + c)))`;
    expect(run(src, ctx('effect'))).toMatchObject({ ok: false, code: 'size_limit' });
  });

  it('stops on the time budget', () => {
    const cubic = `${list}.map(x, ${list}.map(y, ${list}.map(z, x + y + z)))`;
    expect(run(cubic, ctx('effect'), {}, { stepBudget: 1e9, timeBudgetMs: 20 })).toMatchObject({ ok: false, code: 'time_budget' });
  });
});
