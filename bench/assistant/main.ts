/**
 * npm run bench:assistant — the built-in planner over the corpus (test/fixtures/assistant/):
 * exact-match rate (target ≥ 85 %) and median latency per request. The baseline, measured in
 * the same run, is the dry run of the expected operations (apply + shape and consistency
 * validation), which every request pays anyway: the ratio says what planning adds to it.
 */
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppDefinition } from '../../src/definition/schema.ts';
import { evaluate, median, type CorpusCase } from '../../src/assistant/evaluate.ts';
import { BuiltinPlanner } from '../../src/assistant/planners/builtin/index.ts';
import { dryRun } from '../../src/assistant/proposals.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const corpus = JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'assistant', 'corpus.json'), 'utf8')) as { apps: Record<string, string>; cases: CorpusCase[] };
const apps: Record<string, AppDefinition> = Object.fromEntries(
  Object.entries(corpus.apps).map(([name, path]) => [name, JSON.parse(readFileSync(join(root, path), 'utf8')).scode]),
);
const rounds = Number(process.env.ROUNDS ?? 5);

const planner = new BuiltinPlanner();
await evaluate(planner, corpus.cases, apps); // warm-up: compile regexes and the validators
const latencies: number[] = [];
let results = await evaluate(planner, corpus.cases, apps);
for (let i = 0; i < rounds; i++) {
  results = await evaluate(planner, corpus.cases, apps);
  latencies.push(...results.map((r) => r.ms));
}
const baseline: number[] = [];
for (let i = 0; i < rounds; i++) {
  for (const c of corpus.cases) {
    const started = performance.now();
    dryRun(apps[c.app], '1.0.0', { operations: c.expected, understood: [], notUnderstood: [], warnings: [] });
    baseline.push(performance.now() - started);
  }
}

const exact = results.filter((r) => r.exact);
const byApp = Object.keys(apps).map((app) => {
  const mine = results.filter((r) => r.case.app === app);
  return `${app} ${mine.filter((r) => r.exact).length}/${mine.length}`;
});
const rate = (exact.length / results.length) * 100;
console.log(`built-in planner over ${results.length} requests (${byApp.join(', ')})`);
const categories = [...new Set(results.map((r) => r.case.category ?? 'basic'))].sort();
for (const category of categories) {
  const mine = results.filter((r) => (r.case.category ?? 'basic') === category);
  const hits = mine.filter((r) => r.exact).length;
  console.log(`  ${category.padEnd(14)} ${((hits / mine.length) * 100).toFixed(1).padStart(5)} % (${hits}/${mine.length})`);
}
console.log(`exact-match rate: ${rate.toFixed(1)} % (${exact.length}/${results.length}; target ≥ 90 %)`);
// The largest app (most models): the latency target (< 50 ms median) is measured on it.
const largest = Object.keys(apps).sort((a, b) => apps[b].models.length - apps[a].models.length)[0];
const onLargest: number[] = [];
for (let i = 0; i < rounds; i++) onLargest.push(...(await evaluate(planner, corpus.cases.filter((c) => c.app === largest), apps)).map((r) => r.ms));
console.log(`median latency on the largest app (${largest}, ${apps[largest].models.length} models): ${median(onLargest).toFixed(3)} ms (target < 50 ms)`);
console.log(`median latency: ${median(latencies).toFixed(3)} ms per request (planning and its dry run, ${rounds} rounds)`);
console.log(`baseline (dry run of the expected operations alone): median ${median(baseline).toFixed(3)} ms; ratio ${(median(latencies) / median(baseline)).toFixed(2)}×`);
for (const miss of results.filter((r) => !r.exact)) console.log(`  miss [${miss.case.app}] "${miss.case.request}" → ${miss.planned.length ? JSON.stringify(miss.planned) : 'no operations'}`);
if (rate < 90 || median(onLargest) >= 50) process.exitCode = 1;
