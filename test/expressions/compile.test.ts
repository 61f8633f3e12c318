import { describe, expect, it } from 'vitest';
import {
  checkExpression,
  compile,
  MAX_MACRO_NESTING,
  MAX_PARSE_DEPTH,
  MAX_SOURCE_BYTES,
  programCacheSize,
} from '../../src/expressions/index.ts';
import { ctx, definition, PRODUCT, productRule, TODO, todoRule } from './fixtures.ts';

const ok = (source: string, c = todoRule) => checkExpression(source, c);

describe('type checking against the to-do models', () => {
  it('accepts the example rules and comparisons with now', () => {
    expect(ok('record.deadline < now')).toEqual({ ok: true, type: 'bool' });
    expect(ok('auth != null && record.user == auth.id')).toEqual({ ok: true, type: 'bool' });
    expect(ok('auth != null && record.id == auth.id', ctx('rule', 'urn:svc:model:user'))).toMatchObject({ ok: true });
    expect(ok("record.status == 'open' && record.description != null")).toMatchObject({ ok: true });
    expect(ok("operation == 'read' || record.user == auth.id")).toMatchObject({ ok: true });
  });

  it('rejects unknown fields and wrong types with a message', () => {
    const r = ok('record.nope == 1');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain('nope');
    expect(ok('record.title + 1').ok).toBe(false);
    expect(ok('auth.nope == 1').ok).toBe(false);
    expect(ok('unknownVar == 1').ok).toBe(false);
  });

  it('requires a boolean in rule, filter, validation and matchSelector scopes', () => {
    const r = ok('record.title');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/boolean/);
    expect(checkExpression("request.headers['x-v'] == '2'", ctx('matchSelector')).ok).toBe(true);
    expect(checkExpression('request.params.id', ctx('validation')).ok).toBe(true); // dyn may be bool at run time
    expect(checkExpression('request.method', ctx('validation')).ok).toBe(false);
    expect(checkExpression("record.title + '!'", ctx('computed', TODO))).toMatchObject({ ok: true, type: 'string' });
  });

  it('gives each scope its own variables', () => {
    expect(checkExpression('operation == "read"', ctx('filter', TODO)).ok).toBe(false);
    expect(checkExpression('auth != null', ctx('computed', TODO)).ok).toBe(false);
    expect(checkExpression('secrets.API_KEY', ctx('effect')).ok).toBe(true);
    expect(checkExpression('secrets.API_KEY', ctx('initialState')).ok).toBe(false);
    expect(checkExpression('results.load.user == auth.id', ctx('effect')).ok).toBe(true);
    expect(checkExpression("event.payload.name != ''", ctx('validation')).ok).toBe(true);
    expect(checkExpression('record.title', ctx('returnValue')).ok).toBe(false);
  });

  it('types fields from to/max: numbers, ratings, lists, addresses, relationships', () => {
    expect(ok('record.rating >= 3', productRule).ok).toBe(true);
    expect(ok("'vip' in record.tags && record.tags.exists(t, t.startsWith('v'))", productRule).ok).toBe(true);
    expect(ok("record.address.city == 'Berlin'", productRule).ok).toBe(true);
    expect(ok('auth.id in record.owners', productRule).ok).toBe(true);
    expect(ok('record.inStock && record.releases.all(r, r < now)', productRule).ok).toBe(true);
    expect(ok('record.inStock + 1', productRule).ok).toBe(false);
    expect(ok('size(auth.todos) > 0').ok).toBe(true);
  });

  it('checks mixed int/double arithmetic', () => {
    expect(ok('record.price * 2 > 10', productRule).ok).toBe(true);
    expect(ok('2 * record.price > 10', productRule).ok).toBe(true);
    expect(ok('record.price > 1 && record.price == 1 && 1 != record.price', productRule).ok).toBe(true);
    expect(checkExpression('record.price / 2 + 1', ctx('computed', PRODUCT))).toEqual({ ok: true, type: 'double' });
  });

  it('accepts map literals of mixed value types (effects build records)', () => {
    const r = checkExpression("{'title': 'Hi ' + event.payload.name, 'done': false, 'n': 1}", ctx('effect'));
    expect(r).toMatchObject({ ok: true });
  });
});

describe('limits', () => {
  it('refuses matches() at compile time with a clear message', () => {
    const r = ok("record.title.matches('^(a+)+$')");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/matches\(\) is not allowed/);
    expect(checkExpression("matches(event.payload.name, 'a')", ctx('validation')).ok).toBe(false);
  });

  it('refuses too-deep nesting', () => {
    const deep = '('.repeat(MAX_PARSE_DEPTH + 5) + 'true' + ')'.repeat(MAX_PARSE_DEPTH + 5);
    const r = ok(deep);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/nested too deeply/);
    expect(ok('(((true)))').ok).toBe(true);
    const chain = Array.from({ length: 150 }, () => 'true').join(' && ');
    const c = ok(chain);
    expect(c.ok).toBe(false);
    if (!c.ok) expect(c.message).toMatch(/tree depth/);
  });

  it('refuses too many nested macros', () => {
    const nest = (n: number): string => (n === 0 ? 'x0 > 0' : `[1].exists(x${n - 1}, ${nest(n - 1)})`);
    expect(checkExpression(nest(MAX_MACRO_NESTING).replace('x0 > 0', 'true'), ctx('validation')).ok).toBe(true);
    const r = checkExpression(nest(MAX_MACRO_NESTING + 1).replace('x0 > 0', 'true'), ctx('validation'));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/nested macros/);
  });

  it('refuses sources over the size limit and empty sources', () => {
    const long = `'${'a'.repeat(MAX_SOURCE_BYTES)}' == 'a'`;
    const r = checkExpression(long, ctx('validation'));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/too long/);
    expect(checkExpression('   ', ctx('validation')).ok).toBe(false);
  });

  it.each([
    ['record.nope == 1', 'nope'],
    ['auth != null && record.nope == 1', 'nope'],
    ["record.status == 'open' && auth.nope == 1", 'nope'],
  ])('reports the position of a type error: %s', (source, culprit) => {
    const r = ok(source);
    expect(r).toMatchObject({ ok: false, position: source.indexOf(culprit) });
    if (!r.ok) expect(r.message).toBe(`No such key: ${culprit} (at position ${source.indexOf(culprit)})`);
    expect(compile(source, todoRule)).toMatchObject({ ok: false, position: source.indexOf(culprit) });
  });

  it('returns syntax errors as values with a position', () => {
    const r = ok('record.title ==');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.position).toBeTypeOf('number');
  });

  it('reports setup problems (unknown model, missing model) without throwing', () => {
    expect(checkExpression('true', { definition, scope: 'rule', modelId: 'urn:svc:model:nope' })).toMatchObject({ ok: false });
    expect(checkExpression('true', { definition, scope: 'filter' })).toMatchObject({ ok: false });
  });
});

describe('unsafe field names', () => {
  it('never declares __proto__/constructor as fields', () => {
    const odd = {
      versionKey: 'odd',
      userModelId: null,
      models: [{ id: 'm', name: 'Odd', fields: [{ id: 'f', name: 'constructor', to: 'p_TEXT', max: 1 }, { id: 'g', name: '__proto__', to: 'p_TEXT', max: 1 }] }],
    };
    expect(checkExpression('record.id != null && auth == null', { definition: odd, scope: 'rule', modelId: 'm' }).ok).toBe(true);
    expect(checkExpression("record.constructor == 'x'", { definition: odd, scope: 'rule', modelId: 'm' }).ok).toBe(false);
  });
});

describe('program cache', () => {
  it('returns the same compiled program for the same key and a new one for another model set', () => {
    const a = compile('record.user == auth.id', todoRule);
    const b = compile('record.user == auth.id', todoRule);
    expect(a.ok && b.ok && a.compiled === b.compiled).toBe(true);
    expect(programCacheSize()).toBeGreaterThan(0);
    const other = { ...definition, versionKey: 'other' };
    const c = compile('record.user == auth.id', { definition: other, scope: 'rule', modelId: TODO });
    expect(c.ok && a.ok && c.compiled !== a.compiled).toBe(true);
  });

  it('keys definitions without a versionKey by their content', () => {
    const { versionKey: _drop, ...rest } = definition;
    const noKey1 = { ...rest };
    const noKey2 = { ...rest, models: rest.models.filter((m) => m.id !== PRODUCT) };
    expect(checkExpression('record.price > 1', { definition: noKey1, scope: 'rule', modelId: PRODUCT }).ok).toBe(true);
    expect(checkExpression('record.price > 1', { definition: noKey2, scope: 'rule', modelId: PRODUCT }).ok).toBe(false);
  });
});
