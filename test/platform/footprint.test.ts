/**
 * Issue 28's footprint, a fact rather than a timing: `npm start` (the real command, from this
 * checkout, npm's own process included) on a fresh embedded store, and the RSS of its whole
 * process tree from /proc:
 * - idle after start;
 * - after a 500-model application was created, edited (a field with return=minimal, a model's
 *   rules, an added action) and published.
 * The issue's targets are 200 MB and 400 MB; we measure 293-314 MB and 397-423 MB today (npm's
 * own process is ~61 MB of it), so the bounds here are the regression guards of where we stand,
 * to be lowered to the targets as the remaining memory work lands (README, "Memory").
 * `npm start` runs the compiled dist/ (npm install builds it); a checkout without a current build
 * would measure the TypeScript sources under tsx instead, so outside CI the test is skipped then,
 * saying why. In CI (a fresh `npm ci`) dist/ is always current and the test never skips.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeTree, npmStart, treeMemory, type NpmStart } from '../../bench/scale/process-tree.ts';
import { distIsCurrent } from '../../src/cli/build.ts';
import { ApiClient } from '../support/client.ts';
import { generatedCount, generatedFieldId, largeScode } from '../deployments/large-definition.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const IDLE_MB = 380; // target 200
const AFTER_500_MB = 520; // target 400
/**
 * The serving `node` process alone (without npm's own), idle on the embedded store: issue 43's
 * target is 150 MB; measured 224 MB RSS (173 MB PSS) on 2026-11-28, so this is the regression guard.
 */
const SERVICE_IDLE_MB = 260; // target 150
const ADMIN = { apiKey: 'ak_footprint_admin', secret: 'sk_footprint_admin_secret_for_tests' };

function skipReason(): string | null {
  if (process.platform !== 'linux') return 'the footprint is read from /proc (Linux only)';
  if (process.env.CI) return null;
  if (!distIsCurrent(ROOT)) return 'dist/ is missing or older than src/, so `npm start` would run the sources under tsx: run `npm run build`';
  return null;
}

const reason = skipReason();
if (reason) console.warn(`footprint test skipped: ${reason}`);

/** The tree's memory, the largest of a few samples a moment apart (the bound holds for each). */
async function settledTree(service: NpmStart): Promise<ReturnType<typeof treeMemory>> {
  let largest = treeMemory(service.child.pid!);
  for (let sample = 0; sample < 4; sample++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const memory = treeMemory(service.child.pid!);
    if (memory.rssMb > largest.rssMb) largest = memory;
  }
  return largest;
}

describe.skipIf(reason !== null)('the footprint of `npm start` on the embedded store', () => {
  let dataDir: string | undefined;
  let service: NpmStart | undefined;

  beforeAll(async () => {
    expect(distIsCurrent(ROOT), 'dist/ is current (npm ci builds it)').toBe(true);
    dataDir = mkdtempSync(join(tmpdir(), 'appbuilder-footprint-'));
    service = await npmStart(ROOT, {
      APPBUILDER_DATA_DIR: dataDir,
      DATABASE_URL: '',
      APPBUILDER_BOOTSTRAP_CLIENT_ID: ADMIN.apiKey,
      APPBUILDER_BOOTSTRAP_CLIENT_SECRET: ADMIN.secret,
      APPBUILDER_BODY_LIMIT: String(64 * 1024 * 1024),
    });
  }, 240_000);

  afterAll(async () => {
    await service?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it(`is at most ${IDLE_MB} MB RSS for the whole process tree once started`, async () => {
    // Past start-up: the data directory's initialisation (a child of its own) has exited.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const memory = await settledTree(service!);
    console.log(`npm start, idle after start on a fresh embedded store:\n${describeTree(memory)}`);
    // Compiled JavaScript, no TypeScript loader: tsx would show as its esbuild service.
    expect(memory.processes.filter((p) => /esbuild|tsx/.test(p.command))).toEqual([]);
    expect(memory.processes[0].command).toMatch(/npm/);
    expect(memory.rssMb).toBeLessThanOrEqual(IDLE_MB);
    const serving = memory.processes.filter((p) => /appbuilder\.js/.test(p.command));
    expect(serving, 'one serving node process').toHaveLength(1);
    expect(serving[0].rssKb / 1024).toBeLessThanOrEqual(SERVICE_IDLE_MB);
  }, 60_000);

  it(`is at most ${AFTER_500_MB} MB RSS with a 500-model application after edits and a publish`, async () => {
    const started = service!;
    const admin = await ApiClient.login(started.url, ADMIN);
    const customer = await admin.post<{ apiClient: { apiKey: string; secret: string } }>('/v1/customers', { name: 'Footprint' });
    expect(customer.status).toBe(201);
    const client = await ApiClient.login(started.url, customer.body.apiClient);
    const project = await client.post<{ id: string }>('/v1/projects', { name: 'Footprint' });
    const created = await client.post<{ id: string }>('/v1/applications', { projectId: project.body.id, name: 'Five hundred', scode: largeScode(500) });
    expect(created.status, created.text.slice(0, 300)).toBe(201);
    const app = `/v1/applications/${created.body.id}`;

    const middle = Math.floor(generatedCount(500) / 2);
    const model = `${app}/models/urn:svc:model:gen${middle}`;
    const field = await client.patch(`${model}/fields/${generatedFieldId(middle, 'notes')}`, { name: 'remarks' }, { prefer: 'return=minimal' });
    expect([200, 204], field.text.slice(0, 300)).toContain(field.status);
    const rules = await client.patch(model, { accessControl: { rules: [{ access: 'allow', criteria: 'auth != null' }], defaultAccess: 'deny' } });
    expect(rules.status, rules.text.slice(0, 300)).toBe(200);
    const action = {
      id: 'urn:svc:action:footprint',
      startEffectId: 'load',
      effects: [{ actionEffectId: 'load', effect: 'data.get', params: { model: 'ToDo' }, bindParams: { id: 'state.todoId' } }],
      bindReturnValue: 'results.load',
    };
    const added = await client.post(`${app}/actions`, action);
    expect([200, 201], added.text.slice(0, 300)).toContain(added.status);

    const publish = await client.post<{ jobId?: string; id?: string }>(`${app}/publish`, {});
    expect(publish.status, publish.text.slice(0, 300)).toBe(202);
    const { serverVersion } = (await client.get<{ serverVersion: string }>(app)).body;
    const served = `${started.url}/apps/${created.body.id}/api/v${serverVersion}/toDos?limit=1`;
    const deadline = Date.now() + 240_000;
    for (;;) {
      const reply = await fetch(served, { headers: { authorization: `Bearer ${client.token}`, 'x-svc-api-client': client.apiKey! } });
      await reply.arrayBuffer();
      if (reply.status === 200) break;
      if (Date.now() > deadline) throw new Error(`${served} still answers ${reply.status}:\n${started.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    const memory = await settledTree(started);
    console.log(`npm start, a 500-model application created, edited and published:\n${describeTree(memory)}`);
    expect(memory.rssMb).toBeLessThanOrEqual(AFTER_500_MB);
  }, 300_000);
});
