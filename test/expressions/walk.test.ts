import { describe, expect, it } from 'vitest';
import {
  compile,
  freeVariables,
  functionNames,
  LruCache,
  measure,
  nodeText,
  recordFieldReferences,
  variableUse,
  walk,
  type ASTNode,
} from '../../src/expressions/index.ts';
import { ctx, productRule, todoRule } from './fixtures.ts';

function ast(source: string, c = todoRule): ASTNode {
  const r = compile(source, c);
  if (!r.ok) throw new Error(r.message);
  return r.compiled.ast;
}

describe('walk', () => {
  it('visits every node in pre-order with depth and parent', () => {
    const ops: string[] = [];
    walk(ast('auth != null && record.user == auth.id'), (node, info) => {
      ops.push(`${info.depth}:${node.op}`);
      if (info.depth > 0) expect(info.parent).not.toBeNull();
    });
    expect(ops).toEqual(['0:&&', '1:!=', '2:id', '2:value', '1:==', '2:.', '3:id', '2:.', '3:id']);
  });

  it('skips children when the visitor returns false', () => {
    let count = 0;
    walk(ast('record.user == auth.id'), (node) => {
      count++;
      if (node.op === '==') return false;
    });
    expect(count).toBe(1);
  });

  it('finds record fields, functions and free variables; macro variables shadow', () => {
    const tree = ast("record.tags.exists(record, record == 'x') && record.price > 1 && size(auth.todos) > 0", productRule);
    expect(recordFieldReferences(tree)).toEqual(['tags', 'price']);
    expect(functionNames(tree)).toEqual(['exists', 'size']);
    expect([...freeVariables(tree)].sort()).toEqual(['auth', 'record']);
    expect([...freeVariables(ast('cel.bind(x, auth.id, x == record.user)'))].sort()).toEqual(['auth', 'cel', 'record']);
  });

  it('tells which members of a variable an expression reads, and when it uses the variable whole', () => {
    const use = (source: string, c = todoRule) => {
      const found = variableUse(ast(source, c), 'auth');
      return { members: [...found.members].sort(), whole: found.whole };
    };
    expect(use('auth != null && record.user == auth.id')).toEqual({ members: ['id'], whole: false });
    expect(use('null != auth && record.id in auth.todos')).toEqual({ members: ['todos'], whole: false });
    expect(use("has(auth.email) && auth['name'] == 'x'")).toEqual({ members: ['email', 'name'], whole: false });
    expect(use('auth == null')).toEqual({ members: [], whole: false });
    expect(use("record.title in ['a'] || record.status == 'x'")).toEqual({ members: [], whole: false });
    // A macro variable named like the global shadows it.
    expect(use("['a'].exists(auth, auth == 'a')")).toEqual({ members: [], whole: false });
    // Used as a value: returned, put in a map or a list, compared with something else than null.
    expect(use('auth', ctx('returnValue'))).toEqual({ members: [], whole: true });
    expect(use("{'who': auth.id, 'all': auth}", ctx('returnValue'))).toEqual({ members: ['id'], whole: true });
    expect(use('[auth]', ctx('effect'))).toEqual({ members: [], whole: true });
    expect(use('auth == state.who', ctx('effect'))).toEqual({ members: [], whole: true });
  });

  it('measures depth and macro nesting', () => {
    const m = measure(ast('[1].all(a, [2].exists(b, a < b))', ctx('validation')));
    expect(m.macroDepth).toBe(2);
    expect(m.depth).toBeGreaterThan(2);
  });

  it('gives a node its source text with the parentheses of its children', () => {
    const tree = ast("(record.status == 'open') && (auth.id == 'x')");
    expect(nodeText(tree)).toBe("(record.status == 'open') && (auth.id == 'x')");
    if (tree.op === '&&') expect(nodeText(tree.args[1])).toBe("auth.id == 'x'");
  });
});

describe('LruCache', () => {
  it('evicts the least recently used entry', () => {
    const c = new LruCache<string, number>(2);
    c.set('a', 1);
    c.set('b', 2);
    expect(c.get('a')).toBe(1);
    c.set('c', 3);
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')).toBe(1);
    expect(c.size).toBe(2);
  });
});
