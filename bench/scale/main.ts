// `npm run bench:scale` (issue 28): what the management API's steps cost as an application grows.
// For each size N (BENCH_SIZES, default 10,100,500,1000 models: the to-do example plus generated
// models of 11 primitive fields chained parent → children, test/deployments/large-definition.ts),
// on the embedded store (PGlite in memory, the service in this process):
//   create        POST /applications with the whole definition (BENCH_REPS apps; the first is edited)
//   field edit    PATCH …/models/{id}/fields/{id} renaming a field, with `Prefer: return=minimal`
//                 (printed whether the server honoured it: 204, else the whole Application came back)
//   rule edit     PATCH …/models/{id} changing the model's access rules
//   add action    POST …/actions
//   publish       POST …/publish → deployment job succeeded → first 200 from the new version
//                 (each app's first publish: its schema created); the job's own run printed beside
//   versions      GET …/versions (the default page), with its size in bytes
// Printed per step: the median ms over BENCH_REPS (default 3); bytes the control-plane tables
// (schema `appbuilder`: pg_total_relation_size) grew per edit; the RSS of this process (service and
// PGlite) after each size; and between consecutive sizes each step's growth next to the size
// ratio. Targets printed pass/fail: a field edit at the largest N ≤ 3× the same edit at the
// smallest; no step growing more than the size between consecutive N. Asserts nothing.
//
// Environment: BENCH_SIZES, BENCH_REPS.
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.ts';
import { startPlatform } from '../../src/platform.ts';
import { createTestDatabase } from '../../test/support/databases.ts';
import { ApiClient } from '../../test/support/client.ts';
import { BOOTSTRAP, GENEROUS_APP_LIMITS } from '../../test/support/platform.ts';
import { generatedCount, generatedFieldId, largeScode } from '../../test/deployments/large-definition.ts';
import { median } from '../support/measure.ts';

const env = process.env;
const SIZES = (env.BENCH_SIZES ?? '10,100,500,1000').split(',').map(Number);
const REPS = Math.max(1, Number(env.BENCH_REPS ?? 3));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const STEPS = ['create', 'field edit', 'rule edit', 'add action', 'publish', 'versions'] as const;
type Step = (typeof STEPS)[number];

interface Row {
  n: number;
  definitionBytes: number;
  ms: Record<Step, number>;
  jobRunMs: number;
  bytesPerEdit: Record<'field edit' | 'rule edit' | 'add action', number>;
  versionsPageBytes: number;
  rssMb: number;
  minimalHonoured: boolean;
}

const database = await createTestDatabase('pglite');
const config = loadConfig(
  { ...process.env, ...GENEROUS_APP_LIMITS, APPBUILDER_TOKEN_RATE_LIMIT: '100000', APPBUILDER_BODY_LIMIT: String(64 * 1024 * 1024) },
  { bootstrapClient: BOOTSTRAP, port: 0, host: '127.0.0.1' },
);
const platform = await startPlatform(config, { db: database.db, logger: false });
const url = await platform.server.listen({ port: 0, host: '127.0.0.1' });
const admin = await ApiClient.login(url, { apiKey: BOOTSTRAP.id, secret: BOOTSTRAP.secret });
const customer = await admin.post<{ apiClient: { apiKey: string; secret: string } }>('/v1/customers', { name: 'Scale' });
const client = await ApiClient.login(url, customer.body.apiClient);
const project = await client.post<{ id: string }>('/v1/projects', { name: 'Scale' });

/** Bytes of every control-plane table (schema appbuilder), indexes and TOAST included. */
async function storedBytes(): Promise<number> {
  const result = await sql<{ bytes: string }>`
    select coalesce(sum(pg_total_relation_size(c.oid)), 0)::text as bytes
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'appbuilder' and c.relkind in ('r', 'p')`.execute(database.db.kysely);
  return Number(result.rows[0].bytes);
}

/** An edit answers the Application (200) or, under `Prefer: return=minimal`, nothing (204). */
function edited(reply: { status: number; text: string }, what: string): void {
  if (reply.status !== 200 && reply.status !== 204) expect(200, reply, what);
}

function expect(status: number, reply: { status: number; text: string }, what: string): void {
  if (reply.status !== status) throw new Error(`${what} answered ${reply.status}: ${reply.text.slice(0, 500)}`);
}

async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await run();
  return [value, performance.now() - start];
}

/** Median ms and stored bytes per call of `edit(k)`, k = 0 … REPS-1. */
async function edits(edit: (k: number) => Promise<void>): Promise<{ ms: number; bytes: number }> {
  const times: number[] = [];
  const bytes: number[] = [];
  for (let k = 0; k < REPS; k++) {
    const before = await storedBytes();
    const [, ms] = await timed(() => edit(k));
    times.push(ms);
    bytes.push((await storedBytes()) - before);
  }
  return { ms: median(times), bytes: median(bytes) };
}

async function publishAndServe(appId: string): Promise<{ total: number; jobRun: number }> {
  const app = await client.get<{ serverVersion: string }>(`/v1/applications/${appId}`);
  const target = `${url}/apps/${appId}/api/v${app.body.serverVersion}/toDos?limit=1`;
  const headers = { authorization: `Bearer ${client.token}`, 'x-svc-api-client': client.apiKey! };
  const deployment = () =>
    database.db.kysely
      .selectFrom('appbuilder.jobs')
      .select(['started_at', 'completed_at', 'status', 'error_message'])
      .where('application_id', '=', appId)
      .where('job_type', '=', 'deployment')
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
  const start = performance.now();
  expect(202, await client.post(`/v1/applications/${appId}/publish`, {}), 'publish');
  for (let polls = 1; ; polls++) {
    const answer = await fetch(target, { headers });
    await answer.arrayBuffer();
    if (answer.status === 200) break;
    // A failed deployment never serves the version: say why rather than poll until the deadline.
    if (polls % 20 === 0) {
      const job = await deployment();
      if (job.status === 'failed') throw new Error(`the deployment job of ${appId} failed: ${job.error_message}`);
    }
    if (performance.now() - start > 300_000) throw new Error(`${target} still answers ${answer.status}`);
    await sleep(5);
  }
  const total = performance.now() - start;
  const job = await deployment();
  const jobRun = job.started_at && job.completed_at ? new Date(job.completed_at).getTime() - new Date(job.started_at).getTime() : Number.NaN;
  return { total, jobRun };
}

async function measureSize(n: number): Promise<Row> {
  const scode = largeScode(n);
  const definitionBytes = Buffer.byteLength(JSON.stringify(scode));
  const ids: string[] = [];
  const createTimes: number[] = [];
  for (let k = 0; k < REPS; k++) {
    const [reply, ms] = await timed(() => client.post<{ id: string }>('/v1/applications', { projectId: project.body.id, name: `Scale ${n} ${k}`, scode }));
    expect(201, reply, `create (N=${n})`);
    ids.push(reply.body.id);
    createTimes.push(ms);
  }
  const app = ids[0];
  // A generated model in the middle of the chain (the to-do's User when none is generated).
  const middle = Math.floor(generatedCount(n) / 2);
  const model = generatedCount(n) > 0 ? `urn:svc:model:gen${middle}` : 'urn:svc:model:user';
  const field = generatedCount(n) > 0 ? generatedFieldId(middle, 'notes') : 'urn:svc:edge:user-name';
  let minimalHonoured = false;
  const fieldEdit = await edits(async (k) => {
    const reply = await client.patch(`/v1/applications/${app}/models/${model}/fields/${field}`, { name: `notes${k}` }, { prefer: 'return=minimal' });
    if (reply.status === 204) minimalHonoured = true;
    edited(reply, 'field edit');
  });
  const ruleEdit = await edits(async (k) => {
    const accessControl = { rules: [{ access: 'allow', criteria: `auth != null && ${k} >= 0` }], defaultAccess: 'deny' };
    edited(await client.patch(`/v1/applications/${app}/models/${model}`, { accessControl }), 'rule edit');
  });
  const addAction = await edits(async (k) => {
    const action = {
      id: `urn:svc:action:scale-${k}`,
      startEffectId: 'load',
      effects: [{ actionEffectId: 'load', effect: 'data.get', params: { model: 'ToDo' }, bindParams: { id: 'state.todoId' } }],
      bindReturnValue: 'results.load',
    };
    edited(await client.post(`/v1/applications/${app}/actions`, action), 'add action');
  });
  const publishes: Array<{ total: number; jobRun: number }> = [];
  for (const id of ids) publishes.push(await publishAndServe(id));
  const versionTimes: number[] = [];
  let versionsPageBytes = 0;
  for (let k = 0; k < REPS; k++) {
    const [reply, ms] = await timed(() => client.get(`/v1/applications/${app}/versions`));
    expect(200, reply, 'versions');
    versionTimes.push(ms);
    versionsPageBytes = Buffer.byteLength(reply.text);
  }
  return {
    n,
    definitionBytes,
    ms: {
      create: median(createTimes),
      'field edit': fieldEdit.ms,
      'rule edit': ruleEdit.ms,
      'add action': addAction.ms,
      publish: median(publishes.map((p) => p.total)),
      versions: median(versionTimes),
    },
    jobRunMs: median(publishes.map((p) => p.jobRun)),
    bytesPerEdit: { 'field edit': fieldEdit.bytes, 'rule edit': ruleEdit.bytes, 'add action': addAction.bytes },
    versionsPageBytes,
    rssMb: process.memoryUsage().rss / 2 ** 20,
    minimalHonoured,
  };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
const rows: Row[] = [];
const started = Date.now();
try {
  // Untimed warm-up: the first requests of a fresh process pay for loading and JIT.
  await measureSize(SIZES[0]);
  for (const n of SIZES) {
    rows.push(await measureSize(n));
    console.error(`  N=${n} measured (${((Date.now() - started) / 1000).toFixed(0)} s so far)`);
  }
} finally {
  await platform.close();
  await database.drop();
}

console.log(`\npglite (in memory, service in this process): median of ${REPS} per step, ms; ${((Date.now() - started) / 1000).toFixed(0)} s`);
console.log(`  field edit sent with Prefer: return=minimal — ${rows.every((r) => r.minimalHonoured) ? 'honoured (204)' : 'not honoured: the whole Application came back (200)'}`);
const head = ['N models', 'def. size', ...STEPS, 'job run', 'B/field edit', 'B/rule edit', 'B/add action', 'versions page', 'RSS'];
console.log(`  ${head.map((h) => h.padStart(14)).join('')}`);
for (const r of rows) {
  const cells = [
    String(r.n),
    kb(r.definitionBytes),
    ...STEPS.map((s) => r.ms[s].toFixed(0)),
    r.jobRunMs.toFixed(0),
    kb(r.bytesPerEdit['field edit']),
    kb(r.bytesPerEdit['rule edit']),
    kb(r.bytesPerEdit['add action']),
    kb(r.versionsPageBytes),
    `${r.rssMb.toFixed(0)} MB`,
  ];
  console.log(`  ${cells.map((c) => c.padStart(14)).join('')}`);
}

console.log('\n  growth between consecutive sizes (step time ratio; target: ≤ the size ratio)');
let stepsWithin = true;
for (let i = 1; i < rows.length; i++) {
  const [a, b] = [rows[i - 1], rows[i]];
  const size = b.definitionBytes / a.definitionBytes;
  const ratios = [...STEPS.map((s) => [s, b.ms[s] / a.ms[s]] as const), ['job run', b.jobRunMs / a.jobRunMs] as const];
  const over = ratios.filter(([, ratio]) => ratio > size).map(([s]) => s);
  if (over.length > 0) stepsWithin = false;
  console.log(
    `  N ${a.n} → ${b.n}: size ×${size.toFixed(1)}   ${ratios.map(([s, ratio]) => `${s} ×${ratio.toFixed(1)}`).join(', ')}   ${over.length === 0 ? 'PASS' : `FAIL (${over.join(', ')})`}`,
  );
}
if (rows.length >= 2) {
  const [first, last] = [rows[0], rows.at(-1)!];
  const ratio = last.ms['field edit'] / first.ms['field edit'];
  console.log(`\n  target: field edit at N=${last.n} ≤ 3× at N=${first.n}: ×${ratio.toFixed(1)} ${ratio <= 3 ? 'PASS' : 'FAIL'}`);
  console.log(`  target: no step between consecutive N growing more than the size: ${stepsWithin ? 'PASS' : 'FAIL'}`);
  const at500 = rows.find((r) => r.n === 500);
  if (at500) console.log(`  target: deployment job of a 500-model app ≤ 1 s: ${at500.jobRunMs.toFixed(0)} ms ${at500.jobRunMs <= 1000 ? 'PASS' : 'FAIL'}`);
}
