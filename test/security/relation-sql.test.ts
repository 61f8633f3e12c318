// Issue 18 item 4, the cost side: the read rule of a related model enters embedded id arrays and
// relation tests only when it restricts the caller. When it folds to "every record" the statement
// is the one an administrator gets (no condition, no join, no extra alias): the read path keeps
// its plans and its speed.
import { describe, expect, it } from 'vitest';
import type { CompiledApp } from '../../src/runtime/compiled-app.ts';
import { RecordJson } from '../../src/runtime/data/record-json.ts';
import { filterCondition, type Condition, type RuleContext } from '../../src/runtime/data/rule-sql.ts';
import { modelDef, NOW, todoApp, TODO, USER } from '../runtime/fixture.ts';
import { sqlText } from '../runtime/sql-text.ts';

const ANN = { id: '01900000-0000-7000-8000-000000000001', name: 'Ann', email: 'ann@example.test', todos: [] };
const read: RuleContext = { auth: ANN, operation: 'read', now: NOW };

/** The example with every to-do readable by `todoRule` and every user by any signed-in caller. */
function app(todoRule: string): CompiledApp {
  return todoApp((scode) => {
    modelDef(scode, TODO).accessControl = { rules: [{ access: 'allow', criteria: todoRule }], defaultAccess: 'deny' };
    modelDef(scode, USER).accessControl = { rules: [{ access: 'allow', criteria: 'auth != null' }], defaultAccess: 'deny' };
  });
}

const text = (condition: Condition) => (condition.kind === 'where' ? sqlText(condition.sql).sql : condition.kind);

describe('related read rules in SQL', () => {
  it('leaves embedded records and id arrays as an administrator gets them when the related rule allows every record', () => {
    const open = app('auth != null');
    for (const model of [open.modelsById.get(TODO)!, open.modelsById.get(USER)!]) {
      const asAnn = sqlText(new RecordJson(open, read, false).record(model, 't', true));
      const asAdmin = sqlText(new RecordJson(open, { ...read, auth: null }, true).record(model, 't', true));
      expect(asAnn.sql).toBe(asAdmin.sql);
    }
  });

  it('filters embedded id arrays with the related rule when it restricts', () => {
    const owned = app('auth != null && record.user == auth.id');
    const todo = owned.modelsById.get(TODO)!;
    const fk = todo.fieldsByName.get('user')!.column!;
    const embedded = sqlText(new RecordJson(owned, read, false).record(todo, 't', true));
    // The embedded user's to-do ids: only Ann's.
    expect(embedded.sql).toMatch(new RegExp(`"e2"\\."${fk}" = cast\\(\\$\\d+ as uuid\\)`));
    expect(embedded.parameters).toContain(ANN.id);
  });

  it('counts and tests related records in a filter as an administrator does when the related rule allows every record', () => {
    const open = app('auth != null');
    const user = open.modelsById.get(USER)!;
    for (const filter of ['size(record.todos) > 1', "'01900000-0000-7000-8000-000000000009' in record.todos"]) {
      const asAnn = text(filterCondition(open, user, filter, read, 't'));
      expect(asAnn).toBe(text(filterCondition(open, user, filter, { ...read, auth: null }, 't', true)));
      expect(asAnn).not.toContain('"rel"');
    }
  });

  it('counts and tests only the readable related records when the related rule restricts', () => {
    const owned = app('auth != null && record.user == auth.id');
    const user = owned.modelsById.get(USER)!;
    const size = filterCondition(owned, user, 'size(record.todos) > 1', read, 't');
    expect(text(size)).toContain('"rel"');
    expect(size.kind === 'where' && sqlText(size.sql).parameters).toContain(ANN.id);
    // Nobody signed in reads no to-do: every user has none of them.
    const anonymous = filterCondition(owned, user, 'size(record.todos) == 0', { ...read, auth: null }, 't');
    expect(anonymous).toEqual({ kind: 'all' });
  });
});
