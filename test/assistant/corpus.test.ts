import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { evaluate, type CorpusCase } from '../../src/assistant/evaluate.ts';
import { BuiltinPlanner } from '../../src/assistant/planners/builtin/index.ts';
import { dryRun } from '../../src/assistant/proposals.ts';
import { EXAMPLES_DIR } from '../support/examples.ts';

const FIXTURES = join(EXAMPLES_DIR, '..', 'test', 'fixtures', 'assistant');
const corpus = JSON.parse(readFileSync(join(FIXTURES, 'corpus.json'), 'utf8')) as { apps: Record<string, string>; cases: CorpusCase[] };
const apps: Record<string, AppDefinition> = Object.fromEntries(
  Object.entries(corpus.apps).map(([name, path]) => [name, JSON.parse(readFileSync(join(EXAMPLES_DIR, '..', path), 'utf8')).scode]),
);

describe('assistant corpus (test/fixtures/assistant/corpus.json)', () => {
  it('holds at least 150 requests, over at least three apps built from real documents, 40 of the categories builders type and 10 to refuse', () => {
    expect(corpus.cases.length).toBeGreaterThanOrEqual(150);
    const fromDocuments = Object.entries(corpus.apps).filter(([, path]) => path.startsWith('test/fixtures/assistant/apps/')).map(([name]) => name);
    expect(fromDocuments.length).toBeGreaterThanOrEqual(3);
    expect(corpus.cases.filter((c) => !['basic', 'refuse', undefined].includes(c.category)).length).toBeGreaterThanOrEqual(40);
    expect(corpus.cases.filter((c) => c.category === 'refuse' && c.expected.length === 0).length).toBeGreaterThanOrEqual(10);
  });

  it("every case's expected operations get the verdict it states from the dry run", () => {
    for (const c of corpus.cases) {
      const proposal = dryRun(apps[c.app], '1.0.0', { operations: c.expected, understood: ['x'], notUnderstood: [], warnings: [] });
      expect({ request: c.request, status: proposal.status, errors: proposal.errors }).toMatchObject({ request: c.request, status: c.status ?? 'proposed' });
    }
  });

  it('the built-in planner matches at least 90 % of the cases exactly and proposes nothing for what it must not do', async () => {
    const results = await evaluate(new BuiltinPlanner(), corpus.cases, apps);
    const exact = results.filter((r) => r.exact).length / results.length;
    expect(exact).toBeGreaterThanOrEqual(0.9);
    for (const r of results.filter((x) => x.case.expected.length === 0)) expect(r.planned).toEqual([]);
  });
});
