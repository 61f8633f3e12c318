import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  columnNameForField,
  compactId,
  joinTableName,
  resourceName,
  schemaNameForApp,
  tableNameForModel,
} from '../../src/definition/naming.ts';

const SQL_IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

describe('resourceName', () => {
  it.each([
    ['ToDo', 'toDos'],
    ['User', 'users'],
    ['Person', 'people'],
    ['Blog post', 'blogPosts'],
    ['blog_post', 'blogPosts'],
    ['Category', 'categories'],
    ['HTTPRequest', 'httpRequests'],
    ['Sheep', 'sheep'],
  ])('%s → %s', (name, expected) => {
    expect(resourceName(name)).toBe(expected);
  });
  it('is empty for a name without letters or digits', () => {
    expect(resourceName('!!')).toBe('');
  });
});

describe('compactId', () => {
  it('drops the kind prefix and keeps a safe fragment', () => {
    expect(compactId('urn:svc:model:todo')).toBe('todo');
    expect(compactId('urn:svc:edge:todo-title')).toBe('todo_title');
    expect(compactId('@requirement/Track ToDos')).toBe('track_todos');
  });
});

describe('schemaNameForApp', () => {
  it('is app_ and 32 hex digits', () => {
    expect(schemaNameForApp('0190F2A4-7B3C-7D2E-8F10-123456789ABC')).toBe('app_0190f2a47b3c7d2e8f10123456789abc');
  });
  it('refuses what is not a uuid', () => {
    expect(() => schemaNameForApp('x; drop schema public')).toThrow(/uuid/);
  });
});

describe('table and column names', () => {
  it('use a trivial id as it is, with a kind prefix', () => {
    expect(tableNameForModel('urn:svc:model:todo')).toBe('m_todo');
    expect(columnNameForField('urn:svc:edge:title')).toBe('f_title');
    expect(columnNameForField('urn:svc:edge:id')).toBe('f_id');
  });
  it('add a hash to non-trivial ids, so slugs that meet do not collide', () => {
    const a = columnNameForField('urn:svc:edge:todo-title');
    const b = columnNameForField('urn:svc:edge:todo_title');
    const c = columnNameForField('urn:svc:edge:Todo_Title');
    expect(a).toMatch(/^f_todo_title__[0-9a-f]{10}$/);
    expect(b).toBe('f_todo_title');
    expect(new Set([a, b, c]).size).toBe(3);
  });
  it('are deterministic and depend on the id only', () => {
    expect(tableNameForModel('urn:svc:model:To-Do')).toBe(tableNameForModel('urn:svc:model:To-Do'));
  });
  it('stay within 63 bytes of [a-z0-9_] for long or exotic ids', () => {
    const long = `urn:svc:edge:${'very-long-name-'.repeat(10)}`;
    const names = [
      columnNameForField(long),
      columnNameForField(`${long}x`),
      tableNameForModel('urn:svc:model:Ünïcode ✓ model'),
      tableNameForModel('urn:svc:model:✓'),
      tableNameForModel(`urn:svc:model:${'a'.repeat(70)}`),
    ];
    for (const name of names) {
      expect(name).toMatch(SQL_IDENTIFIER);
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(63);
    }
    expect(names[0]).not.toBe(names[1]);
  });
});

describe('joinTableName', () => {
  it('is the same whichever side comes first', () => {
    const a = joinTableName('urn:svc:edge:post-tags', 'urn:svc:edge:tag-posts');
    expect(a).toBe(joinTableName('urn:svc:edge:tag-posts', 'urn:svc:edge:post-tags'));
    expect(a).toMatch(SQL_IDENTIFIER);
    expect(a.startsWith('j_')).toBe(true);
  });
  it('differs between pairs', () => {
    expect(joinTableName('urn:svc:edge:a', 'urn:svc:edge:b')).not.toBe(joinTableName('urn:svc:edge:a', 'urn:svc:edge:c'));
  });
});

describe('identifiers (property)', () => {
  it('are valid PostgreSQL identifiers and distinct for distinct ids', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), fc.string({ maxLength: 120 }), (a, b) => {
        const [x, y] = [columnNameForField(`urn:svc:edge:${a}`), columnNameForField(`urn:svc:edge:${b}`)];
        expect(x).toMatch(SQL_IDENTIFIER);
        expect(Buffer.byteLength(x)).toBeLessThanOrEqual(63);
        if (a !== b) expect(x).not.toBe(y);
      }),
    );
  });
});
