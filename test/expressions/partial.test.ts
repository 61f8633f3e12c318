import { describe, expect, it } from 'vitest';
import { checkTranslatable, compile, partialEvaluate, type Residual } from '../../src/expressions/index.ts';
import { ctx, PRODUCT, productRule, TODO, todoRule } from './fixtures.ts';

function residual(source: string, known: Parameters<typeof partialEvaluate>[1], c = todoRule, errorAs?: boolean): Residual {
  const r = partialEvaluate(source, known, { context: c, errorAs });
  if (!r.ok) throw new Error(r.message);
  return r.residual;
}

const field = (name: string) => ({ kind: 'field', name }) as const;
const value = (v: unknown) => ({ kind: 'value', value: v }) as const;

describe('partialEvaluate', () => {
  const rule = 'auth != null && record.user == auth.id';

  it('folds the owner rule to false for an anonymous caller', () => {
    expect(residual(rule, {})).toEqual({ kind: 'const', value: false });
    expect(residual(rule, { auth: null })).toEqual({ kind: 'const', value: false });
  });

  it('leaves record.user == <literal id> for a signed-in caller', () => {
    expect(residual(rule, { auth: { id: 'u-42', name: 'Ann' } })).toEqual({
      kind: 'compare',
      op: '==',
      left: field('user'),
      right: value('u-42'),
    });
  });

  it('folds operation checks', () => {
    const src = "operation == 'read' || record.status == 'open'";
    expect(residual(src, { operation: 'read' })).toEqual({ kind: 'const', value: true });
    expect(residual(src, { operation: 'update' })).toEqual({ kind: 'compare', op: '==', left: field('status'), right: value('open') });
  });

  it('accepts a compiled program as well as a source', () => {
    const compiled = compile(rule, todoRule);
    expect(compiled.ok).toBe(true);
    if (compiled.ok) expect(partialEvaluate(compiled.compiled, { auth: { id: 'x' } })).toMatchObject({ ok: true, residual: { kind: 'compare' } });
    expect(partialEvaluate(rule, {})).toMatchObject({ ok: false }); // a string needs a context
  });

  it('keeps and/or/not structure and folds known parts inside it', () => {
    const src = "auth.email.endsWith('@admin.test') || (record.user == auth.id && !(record.status == 'done'))";
    expect(residual(src, { auth: { id: 'u1', email: 'boss@admin.test' } })).toEqual({ kind: 'const', value: true });
    expect(residual(src, { auth: { id: 'u1', email: 'ann@x.test' } })).toEqual({
      kind: 'and',
      items: [
        { kind: 'compare', op: '==', left: field('user'), right: value('u1') },
        { kind: 'not', item: { kind: 'compare', op: '==', left: field('status'), right: value('done') } },
      ],
    });
    // auth.email on an anonymous caller is an error: it counts as "no match" (errorAs false) ...
    expect(residual(src, {})).toEqual({ kind: 'const', value: false });
    // ... or as a match for deny rules (errorAs true).
    expect(residual(src, {}, todoRule, true)).toEqual({ kind: 'const', value: true });
  });

  it('folds now, env, constant arithmetic and ternaries into values', () => {
    const now = new Date('2024-03-01T00:00:00Z');
    const r = residual("record.deadline < now && record.status == env.DEFAULT_STATUS && record.title != 'x' + 'y'", {
      now,
      env: { DEFAULT_STATUS: 'open' },
    });
    expect(r).toEqual({
      kind: 'and',
      items: [
        { kind: 'compare', op: '<', left: field('deadline'), right: value(now) },
        { kind: 'compare', op: '==', left: field('status'), right: value('open') },
        { kind: 'compare', op: '!=', left: field('title'), right: value('xy') },
      ],
    });
    expect(residual('(1 + (2 - 3)) * 2 == record.price', {}, productRule)).toEqual({
      kind: 'compare',
      op: '==',
      left: value(0),
      right: field('price'),
    });
    expect(residual("record.price > (auth.id == 'a' ? 10 : 20)", { auth: { id: 'a' } }, productRule)).toEqual({
      kind: 'compare',
      op: '>',
      left: field('price'),
      right: value(10),
    });
  });

  it('translates in, string tests, size and bare boolean fields', () => {
    const r = residual(
      "record.inStock && auth.id in record.owners && size(record.tags) > 0 && record.tags.size() < 5 && 'x' in record.tags",
      { auth: { id: 'u1' } },
      productRule,
    );
    expect(r).toEqual({
      kind: 'and',
      items: [
        { kind: 'compare', op: '==', left: field('inStock'), right: value(true) },
        { kind: 'in', item: value('u1'), list: field('owners') },
        { kind: 'compare', op: '>', left: { kind: 'call', name: 'size', target: field('tags'), args: [] }, right: value(0) },
        { kind: 'compare', op: '<', left: { kind: 'call', name: 'size', target: field('tags'), args: [] }, right: value(5) },
        { kind: 'in', item: value('x'), list: field('tags') },
      ],
    });
    expect(residual("record.status in ['open', 'late'] && record.title.contains(auth.name)", { auth: { id: 'u', name: 'Ann' } })).toEqual({
      kind: 'and',
      items: [
        { kind: 'in', item: field('status'), list: value(['open', 'late']) },
        { kind: 'call', name: 'contains', target: field('title'), args: [value('Ann')] },
      ],
    });
  });

  it('works for list filters (no operation variable)', () => {
    expect(residual("record.status == 'open'", {}, ctx('filter', TODO))).toEqual({
      kind: 'compare',
      op: '==',
      left: field('status'),
      right: value('open'),
    });
  });
});

describe('checkTranslatable', () => {
  it('accepts the example rules', () => {
    expect(checkTranslatable('auth != null && record.user == auth.id', todoRule)).toEqual({ ok: true });
    expect(checkTranslatable('auth != null && record.id == auth.id', ctx('rule', 'urn:svc:model:user'))).toEqual({ ok: true });
    expect(checkTranslatable("auth.todos.exists(t, t == 'x') || record.status == 'open'", todoRule)).toEqual({ ok: true });
  });

  it('refuses matches() and functions or macros applied to the record', () => {
    const m = checkTranslatable("record.title.matches('a.*')", todoRule);
    expect(m.ok).toBe(false);
    if (!m.ok) expect(m.message).toMatch(/matches/);
    for (const src of [
      "record.title.lowerAscii() == 'a'",
      "record.tags.exists(t, t == 'a')",
      'record.price * 2 > 10',
      "string(record.price) == '1'",
      "record.address.city == 'Berlin'",
      "has(record.address) || record.price > 1",
    ]) {
      const r = checkTranslatable(src, productRule);
      expect(r.ok, src).toBe(false);
      if (!r.ok && r.message.startsWith('Cannot translate')) expect(r.message).toMatch(/position \d+/);
    }
  });

  it('refuses non-boolean scopes and unchecked expressions', () => {
    expect(checkTranslatable("record.title + '!'", ctx('computed', TODO)).ok).toBe(false);
    expect(checkTranslatable('record.nope == 1', todoRule).ok).toBe(false);
  });

  it('partialEvaluate refuses non-boolean scopes', () => {
    expect(partialEvaluate("record.title + '!'", {}, { context: ctx('computed', TODO) })).toMatchObject({ ok: false });
  });

  it('returns the refusal from partialEvaluate too', () => {
    expect(partialEvaluate('record.price * 2 > 10', {}, { context: ctx('filter', PRODUCT) })).toMatchObject({ ok: false });
  });
});
