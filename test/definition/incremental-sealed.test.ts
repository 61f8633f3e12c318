// Incremental validation as the service runs it (issue 28, services/applications/service.ts): the
// accepted definition is sealed (deeply frozen, definition/versioning/sealed.ts) and an edit
// shares what it does not change with it, so the validation answers from what it knows of the
// shared models (consistency/fast-accept.ts, shape.ts). On a 600-model application, random edit
// sequences, valid and not, are judged exactly as by a full validation from scratch: the same
// status and the same problems (paths and messages, in order).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { validateDefinition } from '../../src/definition/validate.ts';
import { ExpressionMemo } from '../../src/definition/consistency/incremental.ts';
import { seal } from '../../src/definition/versioning/sealed.ts';
import { largeScode } from './incremental-app.ts';
import { EDITS, GENERATED, N, judge, model, sharing, user, type Outcome } from './incremental-edits.ts';

describe('incremental validation of sealed, sharing definitions agrees with a full validation (600 models)', () => {
  it('random edit sequences on sealed definitions sharing their unchanged models: same status and problems', async () => {
    const memo = new ExpressionMemo();
    let current = seal(validateDefinition(largeScode(N), { memo }));
    validateDefinition(current, { memo });
    let checked = 0;
    const edit = fc.record({ kind: fc.nat({ max: EDITS.length - 1 }), i: fc.nat({ max: GENERATED - 1 }), k: fc.nat({ max: 9 }) });
    // Async, yielding between runs: a long synchronous test starves the worker's messages to vitest.
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 3 }), async (steps) => {
        await new Promise((resolve) => setImmediate(resolve));
        let def = current;
        let outcome: Outcome = { status: 200, errors: [] };
        for (const step of steps) {
          def = sharing(current, (d) => EDITS[step.kind].apply(d, step.i, step.k));
          outcome = judge(() => validateDefinition(def, { memo }));
          if (outcome.status !== 200) break;
          current = seal(def);
        }
        const full = judge(() => validateDefinition(structuredClone(outcome.status === 200 ? current : def)));
        checked++;
        expect(outcome, steps.map((s) => EDITS[s.kind].label).join(' → ')).toEqual(full);
      }),
      { numRuns: Number(process.env.INCREMENTAL_RUNS ?? 50), seed: Number(process.env.INCREMENTAL_SEED ?? 2028) },
    );
    expect(checked).toBeGreaterThanOrEqual(50);
  }, 900_000);

  it('an unchanged model whose rule reads the user model is judged again when the user model changes', () => {
    const memo = new ExpressionMemo();
    let current = seal(validateDefinition(largeScode(N), { memo }));
    const readsName = sharing(current, (d) => void (model(d, 7).accessControl.rules[0] = { access: 'allow', criteria: "auth != null && auth.name != ''" }));
    current = seal(validateDefinition(readsName, { memo }));
    // An edit elsewhere: model 7, now sealed, is judged clean and known so.
    current = seal(validateDefinition(sharing(current, (d) => void (model(d, 9).name = 'Other')), { memo }));
    // The user model's `name` goes: model 7 is unchanged, its rule no longer type-checks.
    const renamed = sharing(current, (d) => void (user(d).fields.find((f) => f.name === 'name')!.name = 'fullName'));
    expect(renamed.models.find((m) => m.id === model(current, 7).id)).toBe(model(current, 7));
    const outcome = judge(() => validateDefinition(renamed, { memo }));
    expect(outcome.status).toBe(409);
    expect(outcome).toEqual(judge(() => validateDefinition(structuredClone(renamed))));
  }, 300_000);
});
