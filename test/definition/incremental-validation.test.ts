// Incremental validation (issue 28): on a 600-model application, random edits, valid and not,
// applied in sequences as an editing session would, are judged by the incremental validation
// (expression verdicts kept in a memo between edits, definition/consistency/incremental.ts)
// exactly as by a full validation from scratch: the same status (400/409, or none) and the same
// problems (paths and messages, in order). Also: an edit re-checks only the expressions it
// touched, and a change of the user model re-checks every expression reading `auth`.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Problem } from '../../src/errors.ts';
import type { AppDefinition, Model } from '../../src/definition/schema.ts';
import { validateDefinition } from '../../src/definition/validate.ts';
import { ExpressionMemo } from '../../src/definition/consistency/incremental.ts';
import { fieldIdOf, largeScode, modelIdOf } from './incremental-app.ts';

const N = 600;
const GENERATED = N - 2;
type Outcome = { status: number; errors: Array<{ path: string; message: string }> };

function judge(run: () => unknown): Outcome {
  try {
    run();
    return { status: 200, errors: [] };
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    return { status: error.status, errors: error.errors.map((e) => ({ path: e.path, message: e.message })) };
  }
}

const model = (def: AppDefinition, i: number): Model => def.models.find((m) => m.id === modelIdOf(i))!;
const fieldOf = (def: AppDefinition, i: number, name: string) => model(def, i).fields.find((f) => f.id === fieldIdOf(i, name));
const user = (def: AppDefinition): Model => def.models.find((m) => m.id === def.userModelId)!;

/** One edit of a definition in place: `i` picks a generated model, `k` a name or variant. */
type Edit = { label: string; apply: (def: AppDefinition, i: number, k: number) => void };

const EDITS: Edit[] = [
  { label: 'rename a field', apply: (d, i, k) => void (fieldOf(d, i, 'f1') && (fieldOf(d, i, 'f1')!.name = `renamed${k}`)) },
  { label: 'rename a field to a name the model has', apply: (d, i) => void (fieldOf(d, i, 'f1') && (fieldOf(d, i, 'f1')!.name = 'f3')) },
  { label: 'rename a field a rule reads', apply: (d, i, k) => void (fieldOf(d, i, 'f0') && (fieldOf(d, i, 'f0')!.name = `gone${k}`)) },
  { label: 'remove a field a rule reads', apply: (d, i) => void (model(d, i).fields = model(d, i).fields.filter((f) => f.name !== 'f2')) },
  { label: 'change the type of a field a rule reads', apply: (d, i) => void (fieldOf(d, i, 'f2') && (fieldOf(d, i, 'f2')!.to = 'p_NUMBER')) },
  { label: 'an expression that does not parse', apply: (d, i) => void (model(d, i).accessControl.rules[0] = { access: 'allow', criteria: 'record.f0 ==' }) },
  { label: 'an expression naming no field', apply: (d, i, k) => void (model(d, i).accessControl.rules[0] = { access: 'allow', criteria: `record.nothing${k} == 1` }) },
  { label: 'a rule reading auth.name', apply: (d, i) => void (model(d, i).accessControl.rules[0] = { access: 'allow', criteria: "auth != null && auth.name != ''" }) },
  { label: 'rename a user model field', apply: (d, _i, k) => void (user(d).fields.find((f) => f.name === 'name') && (user(d).fields.find((f) => f.name === 'name')!.name = `fullName${k}`)) },
  { label: 'a dangling relationship', apply: (d, i) => void (fieldOf(d, i, 'parent') && (fieldOf(d, i, 'parent')!.to = 'urn:svc:model:missing')) },
  { label: 'rename a model', apply: (d, i, k) => void (model(d, i).name = `Thing${k}`) },
  { label: 'rename a model to a name taken', apply: (d, i) => void (model(d, i).name = `Entity${(i + 1) % GENERATED}`) },
  { label: 'a model name that sanitises like another', apply: (d, i) => void (model(d, i).name = `Entity-${(i + 1) % GENERATED}`) },
  { label: 'a model named Request', apply: (d, i) => void (model(d, i).name = 'Request') },
  { label: 'a computed field', apply: (d, i, k) => void model(d, i).fields.push({ id: `urn:svc:edge:c${i}-${k}`, name: `c${k}`, relationshipOwner: true, min: 0, max: 1, to: 'p_NUMBER', computed: k % 2 ? 'record.f1 * 2' : 'record.f0 * 2', accessControl: { rules: [] } }) },
  { label: 'a default expression of the wrong type', apply: (d, i) => void (fieldOf(d, i, 'f6') && (fieldOf(d, i, 'f6')!.defaultValue = { expression: "'five'" })) },
  { label: 'a shape error', apply: (d, i) => void ((fieldOf(d, i, 'f4') as unknown as { min: unknown }).min = 'one') },
  { label: 'remove a model others point to', apply: (d, i) => void (d.models = d.models.filter((m) => m.id !== modelIdOf(i))) },
];

describe('incremental validation agrees with a full validation (600 models)', () => {
  it('random edit sequences: same status and problems', () => {
    const base = validateDefinition(largeScode(N));
    const memo = new ExpressionMemo();
    validateDefinition(structuredClone(base), { memo });
    let current = base;
    let checked = 0;
    const edit = fc.record({ kind: fc.nat({ max: EDITS.length - 1 }), i: fc.nat({ max: GENERATED - 1 }), k: fc.nat({ max: 9 }) });
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 3 }), (steps) => {
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
