// `npm run bench:edits` (issue 28A): what a one-field rename costs on the embedded store for an
// application of N models in all (test/definition/incremental-app.ts): the median time of the
// request, the bytes the control-plane tables grew by per edit (applications, versions and, where
// it exists, the version blobs: pg_total_relation_size, so what the database really stored), and
// the bytes answered, once answering the whole Application and once with `Prefer: return=minimal`.
// Prints figures; asserts nothing.
//
// Environment: BENCH_SIZES (default "10,200,500,1000"), BENCH_EDITS (renames per size, default 7).
import { sql } from 'kysely';
import { createTestDatabase } from '../../test/support/databases.ts';
import { ApiClient } from '../../test/support/client.ts';
import { loadConfig } from '../../src/config.ts';
import { startPlatform } from '../../src/platform.ts';
import { BOOTSTRAP, GENEROUS_APP_LIMITS } from '../../test/support/platform.ts';
import { fieldIdOf, largeScode, modelIdOf } from '../../test/definition/incremental-app.ts';
import { median } from '../support/measure.ts';

const SIZES = (process.env.BENCH_SIZES ?? '10,200,500,1000').split(',').map(Number);
const EDITS = Number(process.env.BENCH_EDITS ?? 7);
const TABLES = ['applications', 'application_versions', 'version_blobs'];

const database = await createTestDatabase('pglite');
const config = loadConfig({ ...process.env, ...GENEROUS_APP_LIMITS, APPBUILDER_TOKEN_RATE_LIMIT: '100000' }, { bootstrapClient: BOOTSTRAP, port: 0, host: '127.0.0.1' });
const platform = await startPlatform(config, { db: database.db, logger: false });
const url = await platform.server.listen({ port: 0, host: '127.0.0.1' });
const client = await ApiClient.login(url, { apiKey: BOOTSTRAP.id, secret: BOOTSTRAP.secret });
const project = await client.post<{ id: string }>('/v1/projects', { name: 'Edits bench' });

async function storedBytes(): Promise<number> {
  let total = 0;
  for (const table of TABLES) {
    const exists = await sql<{ r: string | null }>`select to_regclass(${`appbuilder.${table}`})::text as r`.execute(database.db.kysely);
    if (!exists.rows[0].r) continue;
    const size = await sql<{ n: string }>`select pg_total_relation_size(${`appbuilder.${table}`}::regclass)::text as n`.execute(database.db.kysely);
    total += Number(size.rows[0].n);
  }
  return total;
}

interface Row {
  n: number;
  createMs: number;
  editMs: number;
  bytesPerEdit: number;
  answered: number;
  minimalMs: number;
  minimalAnswered: number;
}
const rows: Row[] = [];

async function renames(appId: string, modelId: string, fieldId: string, prefer: Record<string, string>, tag: string) {
  const times: number[] = [];
  let answered = 0;
  const before = await storedBytes();
  for (let k = 0; k < EDITS; k++) {
    const start = performance.now();
    const reply = await client.patch(`/v1/applications/${appId}/models/${encodeURIComponent(modelId)}/fields/${encodeURIComponent(fieldId)}`, { name: `${tag}${k}` }, prefer);
    times.push(performance.now() - start);
    if (reply.status !== 200 && reply.status !== 204) throw new Error(`rename answered ${reply.status}: ${reply.text}`);
    answered = reply.text.length;
  }
  return { ms: median(times), bytes: ((await storedBytes()) - before) / EDITS, answered };
}

for (const n of SIZES) {
  const scode = largeScode(n);
  const start = performance.now();
  const created = await client.post<{ id: string }>('/v1/applications', { projectId: project.body.id, name: `N=${n}`, scode });
  const createMs = performance.now() - start;
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${created.text.slice(0, 500)}`);
  const i = Math.floor((n - 2) / 2);
  const full = await renames(created.body.id, modelIdOf(i), fieldIdOf(i, 'f1'), {}, 'renamed');
  const minimal = await renames(created.body.id, modelIdOf(i), fieldIdOf(i, 'f1'), { prefer: 'return=minimal' }, 'again');
  rows.push({ n, createMs, editMs: full.ms, bytesPerEdit: full.bytes, answered: full.answered, minimalMs: minimal.ms, minimalAnswered: minimal.answered });
  console.log(`N=${n} done`);
}

console.log(`\nOne-field rename on PGlite, median of ${EDITS} edits per size`);
console.log('     N   create ms   rename ms   stored B/edit   answered B   minimal ms   minimal answered B');
for (const r of rows) {
  console.log(
    `${String(r.n).padStart(6)} ${r.createMs.toFixed(0).padStart(11)} ${r.editMs.toFixed(1).padStart(11)} ${r.bytesPerEdit.toFixed(0).padStart(15)} ${String(r.answered).padStart(12)} ${r.minimalMs.toFixed(1).padStart(12)} ${String(r.minimalAnswered).padStart(20)}`,
  );
}
const first = rows[0];
for (const r of rows.slice(1)) {
  console.log(`  N=${r.n} / N=${first.n}: size ${(r.n / first.n).toFixed(0)}×, rename ${(r.editMs / first.editMs).toFixed(2)}×, minimal ${(r.minimalMs / first.minimalMs).toFixed(2)}×, stored ${(r.bytesPerEdit / first.bytesPerEdit).toFixed(2)}×`);
}
await platform.close();
await database.drop();
