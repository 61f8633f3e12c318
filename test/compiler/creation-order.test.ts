// The order new tables are created in, and which foreign keys their CREATE TABLE declares.
import { describe, expect, it } from 'vitest';
import { creationOrder } from '../../src/compiler/schema/creation-order.ts';
import type { ForeignKeyPlan, TablePlan } from '../../src/compiler/schema/types.ts';

const table = (name: string): TablePlan => ({ name, kind: 'model', sourceIds: [name], label: name, path: '', columns: [], primaryKey: ['id'] });
const key = (from: string, to: string): ForeignKeyPlan => ({ name: `${from}_${to}_fkey`, table: from, column: `to_${to}`, refTable: to, onDelete: 'cascade', label: '', path: '' });
const names = (tables: TablePlan[]) => tables.map((t) => t.name);
const inlined = (inline: Map<string, ForeignKeyPlan[]>) => Object.fromEntries([...inline].map(([name, keys]) => [name, keys.map((k) => k.refTable)]));

describe('creationOrder', () => {
  it('keeps the given order where every key points back, all keys inline', () => {
    const order = creationOrder([table('a'), table('b'), table('c')], [key('b', 'a'), key('c', 'b')]);
    expect(names(order.tables)).toEqual(['a', 'b', 'c']);
    expect(inlined(order.inline)).toEqual({ b: ['a'], c: ['b'] });
  });

  it('creates a table after the tables it points to', () => {
    const order = creationOrder([table('todo'), table('user'), table('tag')], [key('todo', 'user')]);
    expect(names(order.tables)).toEqual(['user', 'todo', 'tag']);
    expect(inlined(order.inline)).toEqual({ todo: ['user'] });
  });

  it('declares a key to the table itself inline', () => {
    const order = creationOrder([table('person')], [key('person', 'person')]);
    expect(inlined(order.inline)).toEqual({ person: ['person'] });
  });

  it('leaves the key that closes a cycle to an alter table', () => {
    const order = creationOrder([table('a'), table('b')], [key('a', 'b'), key('b', 'a')]);
    expect(names(order.tables)).toEqual(['b', 'a']);
    expect(inlined(order.inline)).toEqual({ a: ['b'] });
  });

  it('walks a chain of 5,000 tables without exhausting the stack', () => {
    const tables = Array.from({ length: 5000 }, (_, i) => table(`t${i}`));
    const keys = tables.slice(0, -1).map((_, i) => key(`t${i}`, `t${i + 1}`));
    const order = creationOrder(tables, keys);
    expect(order.tables[0].name).toBe('t4999');
    expect(order.inline.size).toBe(4999);
  });
});
