// `npm run bench:import`: generated CSV rows written into an application's table by the data import
// (src/imports/: csv-parse stream → per-column converters with the write path's field checks →
// COPY lines in batches) against a raw `pg` `COPY … FROM STDIN` of the same file into a copy of
// the application's table (`like … including all`: its generated search column, indexes and
// checks, so the server does the same work), in the same run, on PostgreSQL; then the import's rate on PGlite with fewer
// rows. Prints rows/s, the ratio, the RSS growth of this process while importing (sampled every
// 20 ms), and the CPU this process spent (rows per CPU-second: the import's own cost, whatever
// else the machine runs; the load average is printed beside it). Asserts nothing.
//
// Environment: BENCH_IMPORT_ROWS (PostgreSQL, default 1,000,000), BENCH_IMPORT_PGLITE_ROWS
// (default 100,000), BENCH_DRIVERS (default "postgres,pglite"), DATABASE_URL (the PostgreSQL
// server; a database is created for the run and dropped after it).
import { migrateControlPlane } from '../../src/storage/migrate.ts';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { openPglite, openPostgres, type Db } from '../../src/storage/db.ts';
import { buildSpecification } from '../../src/specifications/build.ts';
import { planMigration, applyMigration } from '../../src/compiler/schema/index.ts';
import { compileApp } from '../../src/runtime/compiled-app.ts';
import { importRows } from '../../src/imports/run-import.ts';
import { fieldName } from '../../src/specifications/names.ts';
import { csvRows } from '../../src/imports/text-rows.ts';

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 1_000_000);
const PGLITE_ROWS = Number(process.env.BENCH_IMPORT_PGLITE_ROWS ?? 100_000);
const DRIVERS = (process.env.BENCH_DRIVERS ?? 'postgres,pglite').split(',');
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const APP_ID = '0190a000-0000-7000-8000-00000000be01';
const CATEGORIES = ['alpha', 'beta', 'gamma', 'delta'];
const HEADER = 'name,value,taken_at,ok,category';

function line(i: number): string {
  const day = String(1 + (i % 28)).padStart(2, '0');
  return `reading ${i},${(i % 10_000) / 100},2024-02-${day}T10:${String(i % 60).padStart(2, '0')}:00Z,${i % 3 === 0 ? 'true' : 'false'},${CATEGORIES[i % 4]}`;
}

async function writeCsv(path: string, rows: number): Promise<void> {
  const out = createWriteStream(path);
  out.write(`${HEADER}\n`);
  for (let i = 0; i < rows; i++) {
    if (!out.write(`${line(i)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** The application: one model made from the CSV's first rows, its table created as a deployment would. */
async function prepareApp(db: Db) {
  // The platform's tables, for the outbox the import writes one event per row into (its trigger
  // numbering them for realtime); the bench's app is no registered application, so the events'
  // reference to one is dropped.
  await migrateControlPlane(db);
  await sql`alter table appbuilder.events drop constraint if exists events_application_id_fkey`.execute(db.kysely);
  const sample = Buffer.from([HEADER, ...Array.from({ length: 400 }, (_, i) => line(i))].join('\n'));
  const built = await buildSpecification('bench', [{ id: 'sample', name: 'readings.csv', kind: 'csv', bytes: sample }]);
  await applyMigration(db, planMigration(null, built.content, APP_ID));
  const app = compileApp(APP_ID, '1.0.0', built.content);
  const model = app.models.find((m) => m.name === 'Reading')!;
  return { app, model };
}

/** Runs `work` while sampling this process's RSS; answers the seconds and the peak growth in MB. */
async function measured(work: () => Promise<void>): Promise<{ seconds: number; rssGrowthMb: number; cpuSeconds: number }> {
  global.gc?.();
  const start = process.memoryUsage.rss();
  const cpu = process.cpuUsage();
  let peak = start;
  let atPeak = process.memoryUsage();
  const timer = setInterval(() => {
    const rss = process.memoryUsage.rss();
    if (rss > peak) {
      peak = rss;
      if (process.env.BENCH_IMPORT_MEMORY) atPeak = process.memoryUsage();
    }
  }, 20);
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage.rss());
  if (process.env.BENCH_IMPORT_MEMORY) console.log('  at the peak:', Object.entries(atPeak).map(([k, v]) => `${k} ${(v / 1048576).toFixed(0)} MB`).join(', '));
  const used = process.cpuUsage(cpu);
  return { seconds, rssGrowthMb: (peak - start) / 1024 / 1024, cpuSeconds: (used.user + used.system) / 1e6 };
}

/** `COPY … FROM STDIN` with pg alone: the file's bytes sent as CopyData messages (what pg-copy-streams does). */
function copyFromFile(client: pg.Client, statement: string, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const submittable = {
      submit(connection: { query(text: string): void }) {
        connection.query(statement);
      },
      handleCopyInResponse(connection: { sendCopyFromChunk(chunk: Buffer): void; endCopyFrom(): void; stream: import('node:stream').Writable }) {
        const input = createReadStream(path, { start: HEADER.length + 1, highWaterMark: 256 * 1024 });
        input.on('data', (chunk) => {
          connection.sendCopyFromChunk(chunk as Buffer);
          if (connection.stream.writableNeedDrain) {
            input.pause();
            connection.stream.once('drain', () => input.resume());
          }
        });
        input.on('end', () => connection.endCopyFrom());
        input.on('error', reject);
      },
      handleCommandComplete() {},
      handleReadyForQuery() {
        resolve();
      },
      handleError(error: Error) {
        reject(error);
      },
    };
    void client.query(submittable as unknown as pg.QueryConfig);
  });
}

async function importInto(db: Db, rows: number, file: string) {
  const { app, model } = await prepareApp(db);
  let report: Awaited<ReturnType<typeof importRows>> | undefined;
  const run = await measured(async () => {
    report = await importRows(db, app, model, csvRows(createReadStream(file, { highWaterMark: 256 * 1024 })), 'abort');
  });
  const stored = await sql<{ n: number }>`select count(*)::int as n from ${sql.raw(`"${app.schema}"."${model.table}"`)}`.execute(db.kysely);
  if (report?.status !== 'succeeded' || stored.rows[0]?.n !== rows) throw new Error(`import ${report?.status}: ${JSON.stringify(report?.report.errors.slice(0, 2))}, ${stored.rows[0]?.n} stored`);
  // the CSV's columns as the table names them, for the baseline's COPY
  const columns = HEADER.split(',').map((name) => `"${model.fieldsByName.get(fieldName(name))!.column!}"`);
  return { ...run, table: `"${app.schema}"."${model.table}"`, columns: columns.join(', ') };
}

async function postgres(dir: string): Promise<void> {
  const file = join(dir, 'readings.csv');
  await writeCsv(file, ROWS);
  const name = `bench_import_${process.pid}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  try {
    const db = await openPostgres(url.toString());
    const ours = await importInto(db, ROWS, file);
    await db.close();
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    // the application's own table (its generated search column, indexes and checks): the same work on the server
    await client.query(`create table baseline (like ${ours.table} including all)`);
    const raw = await measured(() => copyFromFile(client, `copy baseline (${ours.columns}) from stdin (format csv)`, file));
    const copied = await client.query<{ n: number }>('select count(*)::int as n from baseline');
    await client.end();
    if (copied.rows[0]!.n !== ROWS) throw new Error(`baseline copied ${copied.rows[0]!.n} rows`);
    const rate = (s: number) => Math.round(ROWS / s);
    console.log(`PostgreSQL, ${ROWS.toLocaleString('en')} CSV rows`);
    console.log(`  import        ${rate(ours.seconds).toLocaleString('en')} rows/s (${ours.seconds.toFixed(1)} s), RSS peak − start ${ours.rssGrowthMb.toFixed(0)} MB (target ≥ 50,000 rows/s, < 100 MB)`);
    console.log(`  raw pg COPY   ${rate(raw.seconds).toLocaleString('en')} rows/s (${raw.seconds.toFixed(1)} s), RSS peak − start ${raw.rssGrowthMb.toFixed(0)} MB`);
    console.log(`  ratio         ${(raw.seconds / ours.seconds).toFixed(2)}× the baseline's rate`);
    console.log(`  import's own CPU ${ours.cpuSeconds.toFixed(1)} s: ${rate(ours.cpuSeconds).toLocaleString('en')} rows per CPU-second of this process (load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores)`);
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

async function pglite(dir: string): Promise<void> {
  const file = join(dir, 'readings-pglite.csv');
  await writeCsv(file, PGLITE_ROWS);
  const db = await openPglite(null);
  try {
    const ours = await importInto(db, PGLITE_ROWS, file);
    console.log(`PGlite, ${PGLITE_ROWS.toLocaleString('en')} CSV rows`);
    console.log(`  import        ${Math.round(PGLITE_ROWS / ours.seconds).toLocaleString('en')} rows/s (${ours.seconds.toFixed(1)} s), RSS peak − start ${ours.rssGrowthMb.toFixed(0)} MB (the database runs in this process)`);
  } finally {
    await db.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'bench-import-'));
try {
  if (DRIVERS.includes('postgres')) await postgres(dir);
  if (DRIVERS.includes('pglite')) await pglite(dir);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
