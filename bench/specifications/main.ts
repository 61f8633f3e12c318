/**
 * `npm run bench:specifications` (issue 14): time to a finished specification — POST
 * `…/specifications` → the `specification_generation` job done → GET the specification — for the
 * real-world OpenAPI file of 50+ schemas (STAPI, 222) and the 10+-table PostgreSQL schema
 * (Pagila), the median of several runs on a real service (target: under 2 s each). The baseline,
 * measured in the same run on the same bytes, is the build alone called in-process (extract,
 * merge, generate, validate): the ratio says what the API, the job queue and storage add to it.
 *
 * Environment: ROUNDS (default 7), BENCH_DRIVER (`pglite`, default, or `postgres`).
 */
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestPlatform } from '../../test/support/platform.ts';
import { createTenant } from '../../test/support/tenant.ts';
import { uploadAttachment, type SpecificationReply } from '../../test/specifications/support.ts';
import { buildSpecification } from '../../src/specifications/build.ts';
import { detectKind } from '../../src/specifications/kind.ts';
import type { Driver } from '../../src/storage/db.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const DRIVER = (process.env.BENCH_DRIVER ?? 'pglite') as Driver;
const TARGET_MS = 2000;
const DOCUMENTS = [
  { label: 'OpenAPI, STAPI (222 schemas)', file: 'test/fixtures/openapi/star-trek-stapi.yaml' },
  { label: 'PostgreSQL, Pagila (15+ tables)', file: 'test/fixtures/sql/pagila-schema.sql' },
];

const median = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const t = await startTestPlatform(DRIVER);
try {
  const tenant = await createTenant(t, 'Bench specifications');
  const { api, projectId } = tenant;
  console.log(`bench:specifications on ${DRIVER}, ${ROUNDS} rounds each (after one warm-up)`);
  let allHold = true;
  for (const doc of DOCUMENTS) {
    const bytes = readFileSync(join(root, doc.file));
    const name = doc.file.split('/').pop()!;
    const uploaded = await uploadAttachment(api, projectId, name, bytes);
    if (uploaded.status !== 201) throw new Error(`upload answered ${uploaded.status}`);
    const kind = await detectKind(bytes, name, '');

    /** POST → job done → GET: milliseconds, and the specification. */
    const roundTrip = async (): Promise<{ ms: number; spec: SpecificationReply }> => {
      const started = performance.now();
      const created = await api.post<{ id: string }>(`/v1/projects/${projectId}/specifications`, { attachmentIds: [uploaded.body.id] });
      if (created.status !== 202) throw new Error(`create answered ${created.status}: ${created.text}`);
      for (;;) {
        const reply = await api.get<SpecificationReply>(`/v1/projects/${projectId}/specifications/${created.body.id}`);
        if (reply.body.status === 'succeeded' || reply.body.status === 'failed') return { ms: performance.now() - started, spec: reply.body };
        await sleep(5);
      }
    };
    const build = async () => {
      const started = performance.now();
      await buildSpecification(name, [{ id: uploaded.body.id, name, kind, bytes }]);
      return performance.now() - started;
    };

    const warm = await roundTrip();
    if (warm.spec.status !== 'succeeded') throw new Error(`${doc.label}: ${warm.spec.errorMessage}`);
    await build();
    const service: number[] = [];
    const baseline: number[] = [];
    // Alternating, so load from other work on the machine falls on both alike.
    for (let i = 0; i < ROUNDS; i++) {
      service.push((await roundTrip()).ms);
      baseline.push(await build());
    }
    const s = median(service);
    const b = median(baseline);
    const holds = s < TARGET_MS;
    allHold &&= holds;
    const summary = warm.spec.summary!;
    console.log(
      `${doc.label}: ${summary.models} models, ${summary.relationships} relationships, ${summary.actions} actions, ${summary.warnings} warnings\n` +
        `  finished specification (POST → job → GET), median ${s.toFixed(0)} ms (min ${Math.min(...service).toFixed(0)}, max ${Math.max(...service).toFixed(0)})\n` +
        `  baseline, the build alone in-process, median ${b.toFixed(0)} ms; ratio service/baseline ${(s / b).toFixed(2)}×\n` +
        `  target < ${TARGET_MS} ms: ${holds ? 'HOLDS' : 'DOES NOT HOLD'}`,
    );
  }
  console.log(allHold ? 'all targets hold' : 'a target does not hold');
} finally {
  await t.close();
}
