import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { accessCondition, type RuleContext } from '../../src/runtime/data/rule-sql.ts';
import { plainJson } from '../../src/runtime/writes/plain-record.ts';
import { selfContained } from '../../src/runtime/writes/self-contained.ts';
import { ident } from '../../src/storage/sql.ts';
import { modelDef, NOW, todoApp, TODO, USER } from './fixture.ts';

const ANN = { id: '01900000-0000-7000-8000-000000000001', name: 'Ann', email: 'ann@example.test', todos: [] };
const update: RuleContext = { auth: ANN, operation: 'update', now: NOW };

describe('selfContained (a write merged with its read-back)', () => {
  it('accepts a rule on the row’s own columns, and values or names that spell select', () => {
    const app = todoApp();
    const todo = app.modelsById.get(TODO)!;
    const condition = accessCondition(app, todo, update, 't');
    expect(condition.kind).toBe('where');
    if (condition.kind !== 'where') return;
    expect(selfContained(condition.sql, plainJson(app, todo))).toBe(true);
    expect(selfContained(sql`t.${ident('select')} = ${'select 1'} and 'select' <> ''`)).toBe(true);
  });

  it('refuses a subquery: in a rule over a relation stored elsewhere, and in a record with a to-many relation', () => {
    const app = todoApp((scode) => {
      modelDef(scode, USER).accessControl = { rules: [{ access: 'allow', criteria: 'auth != null && auth.id in record.todos' }] };
    });
    const user = app.modelsById.get(USER)!;
    const condition = accessCondition(app, user, update, 't');
    expect(condition.kind).toBe('where');
    if (condition.kind === 'where') expect(selfContained(condition.sql)).toBe(false);
    expect(selfContained(plainJson(app, user))).toBe(false);
    expect(selfContained(sql`t.id = ${'x'}`, sql`exists (SELECT 1)`)).toBe(false);
  });
});
