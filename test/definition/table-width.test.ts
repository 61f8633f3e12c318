// A model whose table would need more columns than PostgreSQL allows (1600) is refused at
// validation (409, naming the model), counting only what has a column: three system columns and
// each stored field; computed fields and the to-many side of a relationship have none. Up to the
// limit a model validates, whether validated from scratch or with a memo (the fast acceptance).
import { describe, expect, it } from 'vitest';
import { Problem, type ProblemDetail } from '../../src/errors.ts';
import { ExpressionMemo } from '../../src/definition/consistency/incremental.ts';
import type { AppDefinition, Field } from '../../src/definition/schema.ts';
import { validateDefinition } from '../../src/definition/validate.ts';
import { acceptAll, todo } from './fixtures/index.ts';

const field = (i: number, over: Partial<Field> = {}): Field => ({
  id: `urn:svc:edge:wide-${i}`, name: `f${i}`, relationshipOwner: true, min: 0, max: 1, to: 'p_TEXT', accessControl: { rules: [] }, ...over,
});

/** The example plus a model `Broad` of `count` fields, `over(i)` changing field i. */
function withBroad(count: number, over: (i: number) => Partial<Field> = () => ({})): AppDefinition {
  const def = todo();
  def.models.push({ id: 'urn:svc:model:broad', name: 'Broad', accessControl: { rules: [] }, fields: Array.from({ length: count }, (_, i) => field(i, over(i))) });
  return def;
}

function problemsOf(def: AppDefinition, memo?: ExpressionMemo): ProblemDetail[] | number {
  try {
    validateDefinition(def, memo ? { memo } : { expressions: acceptAll });
    return [];
  } catch (error) {
    if (error instanceof Problem) return error.status === 409 ? error.errors : error.status;
    throw error;
  }
}

describe('a model as wide as a PostgreSQL table', () => {
  it('accepts 1597 stored fields (1600 columns with id and the timestamps)', () => {
    expect(problemsOf(withBroad(1597))).toEqual([]);
    expect(problemsOf(withBroad(1597), new ExpressionMemo())).toEqual([]);
  });

  it('refuses 1598 stored fields with a 409 naming the model and its count', () => {
    const def = withBroad(1598);
    const index = def.models.length - 1;
    for (const memo of [undefined, new ExpressionMemo()]) {
      const problems = problemsOf(structuredClone(def), memo);
      expect(problems).toEqual([{ path: `/models/${index}`, message: expect.stringContaining('The model Broad needs 1601 columns') }]);
      expect((problems as ProblemDetail[])[0].message).toContain('at most 1600');
    }
  });

  it('counts what has a column: computed fields, to-many pointers and the other side of a pair have none', () => {
    // 1600 fields: 2 computed, 2 to-many pointers (join tables), 1 the has-many side of a pair whose column is on ToDo.
    const def = withBroad(1600, (i) => {
      if (i < 2) return { computed: "'x'" };
      if (i < 4) return { to: 'urn:svc:model:user', max: null };
      return {};
    });
    const broad = def.models[def.models.length - 1];
    broad.fields[4] = field(4, { to: 'urn:svc:model:todo', max: null });
    const todoModel = def.models.find((m) => m.id === 'urn:svc:model:todo')!;
    todoModel.fields.push(field(9999, { name: 'broad', to: 'urn:svc:model:broad', relationshipOwner: false }));
    // 1595 stored fields and 3 system columns: 1598, accepted.
    expect(problemsOf(def)).toEqual([]);
    // A to-one pointer holds its foreign key: one more column each.
    broad.fields[2] = field(2, { to: 'urn:svc:model:user' });
    broad.fields[3] = field(3, { to: 'urn:svc:model:user' });
    broad.fields[1] = field(1);
    const problems = problemsOf(def) as ProblemDetail[];
    expect(problems.map((p) => p.path)).toEqual([`/models/${def.models.length - 1}`]);
    expect(problems[0].message).toContain('needs 1601 columns');
  });

  it('refuses more fields than a table has columns at the shape (400)', () => {
    expect(problemsOf(withBroad(1601))).toBe(400);
  });
});
