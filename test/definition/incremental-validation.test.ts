// Incremental validation (issue 28): on a 600-model application, random edits, valid and not,
// applied in sequences as an editing session would, are judged by the incremental validation
// (expression verdicts kept in a memo between edits, definition/consistency/incremental.ts)
// exactly as by a full validation from scratch: the same status (400/409, or none) and the same
// problems (paths and messages, in order). Also: an edit re-checks only the expressions it
// touched, and a change of the user model re-checks every expression reading `auth`.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { validateDefinition } from '../../src/definition/validate.ts';
import { ExpressionMemo } from '../../src/definition/consistency/incremental.ts';
import { largeScode } from './incremental-app.ts';
import { EDITS, GENERATED, N, fieldOf, judge, user, type Outcome } from './incremental-edits.ts';

describe('incremental validation agrees with a full validation (600 models)', () => {
  it('random edit sequences: same status and problems', async () => {
    const base = validateDefinition(largeScode(N));
    const memo = new ExpressionMemo();
    validateDefinition(structuredClone(base), { memo });
    let current = base;
    let checked = 0;
    const edit = fc.record({ kind: fc.nat({ max: EDITS.length - 1 }), i: fc.nat({ max: GENERATED - 1 }), k: fc.nat({ max: 9 }) });
    // Async, yielding between runs: a long synchronous test starves the worker's messages to vitest.
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 3 }), async (steps) => {
        await new Promise((resolve) => setImmediate(resolve));
        // A session: each step starts from the last definition the incremental validation accepted.
        let def = structuredClone(current);
        let outcome: Outcome = { status: 200, errors: [] };
        for (const step of steps) {
          EDITS[step.kind].apply(def, step.i, step.k);
          outcome = judge(() => validateDefinition(def, { memo }));
          if (outcome.status !== 200) break;
          current = def;
          def = structuredClone(def);
        }
        // The reference: the last definition judged, validated from scratch.
        const full = judge(() => validateDefinition(structuredClone(outcome.status === 200 ? current : def)));
        checked++;
        expect(outcome, steps.map((s) => EDITS[s.kind].label).join(' → ')).toEqual(full);
      }),
      { numRuns: Number(process.env.INCREMENTAL_RUNS ?? 50), seed: Number(process.env.INCREMENTAL_SEED ?? 2028) },
    );
    expect(checked).toBeGreaterThanOrEqual(50);
  }, 900_000);

  it('an edit re-checks the expressions it touched; a user model change re-checks those reading auth', () => {
    const def = validateDefinition(largeScode(N));
    const memo = new ExpressionMemo();
    validateDefinition(structuredClone(def), { memo });
    const sites = memo.hits + memo.misses;
    expect(memo.misses).toBeGreaterThanOrEqual(GENERATED);

    const renamed = structuredClone(def);
    fieldOf(renamed, 10, 'f1')!.name = 'title2';
    validateDefinition(renamed, { memo });
    expect(memo.misses).toBeGreaterThan(0);
    expect(memo.misses).toBeLessThanOrEqual(4); // the model's rule: check, budget, translation, variables
    expect(memo.hits + memo.misses).toBe(sites);

    // Every generated rule reads `auth`: a change of the user model's type re-checks them all.
    const userChanged = structuredClone(renamed);
    user(userChanged).fields.find((f) => f.name === 'name')!.name = 'fullName';
    validateDefinition(userChanged, { memo });
    expect(memo.misses).toBeGreaterThanOrEqual(GENERATED);
    expect(memo.size).toBeLessThanOrEqual(sites);
  }, 300_000);
});
