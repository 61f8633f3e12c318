/**
 * `npm run bench:figma` (issue 15): seconds from import to downloadable zip for the largest Figma
 * fixture of `test/fixtures/figma/` — POST `…/figma/imports` (by file key, from a local double of
 * the Figma API on this machine: Figma itself is not reachable here) → POST `…/code` → poll
 * `GET …/code/{jobId}` until the zip answers 200 — on a real service, the median of a few rounds.
 * The baseline, measured in the same run on the same bytes, is the work alone in-process (parse,
 * list frames, render every frame, zip): the ratio says what the API, the database and the job
 * queue add to it.
 *
 * Environment: ROUNDS (default 5), BENCH_DRIVER (`pglite`, default, or `postgres`).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startTestPlatform } from '../../test/support/platform.ts';
import { createTenant } from '../../test/support/tenant.ts';
import { FIXTURES, GOOD_TOKEN, fixtureBytes, getCode, startFigmaDouble, unzipSite, type ImportReply } from '../../test/figma/imports-support.ts';
import { readFigmaFile, openDocument } from '../../src/figma/imports.ts';
import { renderFigmaSite } from '../../src/figma/render/index.ts';
import { packageSite } from '../../src/figma/package.ts';
import type { Driver } from '../../src/storage/db.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const DRIVER = (process.env.BENCH_DRIVER ?? 'pglite') as Driver;

const median = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => (ms / 1000).toFixed(3);

const largest = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.json'))
  .map((name) => ({ name, size: statSync(join(FIXTURES, name)).size }))
  .sort((x, y) => y.size - x.size)[0];
const json = fixtureBytes(largest.name);

const figma = await startFigmaDouble({ bench: { json } });
process.env.APPBUILDER_FIGMA_API_URL = figma.url;
process.env.APPBUILDER_HTTP_ALLOW = '127.0.0.1';
const t = await startTestPlatform(DRIVER);
try {
  const { api, projectId } = await createTenant(t, 'Bench Figma');
  const put = await api.request('PUT', `/v1/projects/${projectId}/secrets/FIGMA_TOKEN`, { body: { value: GOOD_TOKEN } });
  if (put.status !== 201) throw new Error(`secret answered ${put.status}`);
  console.log(`bench:figma on ${DRIVER}: ${largest.name} (${(largest.size / 1024 / 1024).toFixed(2)} MiB), ${ROUNDS} rounds after one warm-up`);

  /** Import → job → zip: the three stages in milliseconds, and the zip's figures. */
  const roundTrip = async () => {
    const started = performance.now();
    const created = await api.post<ImportReply>(`/v1/projects/${projectId}/figma/imports`, { fileKey: 'bench', tokenSecret: 'FIGMA_TOKEN' });
    if (created.status !== 201) throw new Error(`import answered ${created.status}: ${created.text}`);
    const imported = performance.now();
    const queued = await api.post<{ jobId: string }>(`/v1/projects/${projectId}/figma/imports/${created.body.id}/code`, {});
    if (queued.status !== 202) throw new Error(`code answered ${queued.status}: ${queued.text}`);
    for (;;) {
      const reply = await getCode(api, projectId, created.body.id, queued.body.jobId);
      if (reply.status === 200) {
        const done = performance.now();
        return { importMs: imported - started, codeMs: done - imported, totalMs: done - started, frames: created.body.frames.length, zipBytes: reply.bytes.length, files: unzipSite(reply.bytes).size };
      }
      if (reply.status !== 409) throw new Error(`zip answered ${reply.status}: ${reply.bytes.toString('utf8').slice(0, 300)}`);
      await sleep(5);
    }
  };
  /** The same work in-process, without HTTP, database or queue. */
  const inProcess = () => {
    const started = performance.now();
    const file = readFigmaFile(json, '/fileKey');
    packageSite(renderFigmaSite({ document: openDocument(file.gzipped), images: new Map() }));
    return performance.now() - started;
  };

  const warm = await roundTrip();
  inProcess();
  const rounds: Array<Awaited<ReturnType<typeof roundTrip>>> = [];
  const baseline: number[] = [];
  // Alternating, so load from other work on the machine falls on both alike.
  for (let i = 0; i < ROUNDS; i++) {
    rounds.push(await roundTrip());
    baseline.push(inProcess());
  }
  const total = median(rounds.map((r) => r.totalMs));
  const base = median(baseline);
  console.log(`  ${warm.frames} frames → ${warm.files} files, zip ${(warm.zipBytes / 1024).toFixed(0)} KiB`);
  console.log(`  import (POST, file fetched, stored)  median ${seconds(median(rounds.map((r) => r.importMs)))} s`);
  console.log(`  code job (queued → zip downloadable) median ${seconds(median(rounds.map((r) => r.codeMs)))} s`);
  console.log(`  import → downloadable zip            median ${seconds(total)} s (min ${seconds(Math.min(...rounds.map((r) => r.totalMs)))}, max ${seconds(Math.max(...rounds.map((r) => r.totalMs)))})`);
  console.log(`  baseline, in-process parse+render+zip median ${seconds(base)} s → service/baseline ${(total / base).toFixed(2)}×`);
} finally {
  await t.close();
  await figma.close();
}
