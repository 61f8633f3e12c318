// `npm run bench:backup`: one application with BENCH_BACKUP_ROWS to-dos (default 1,000,000) on
// PostgreSQL, backed up (archive written and stored), verified (restore drill in a scratch
// schema) and restored in place, through the service's own jobs; against a baseline doing the
// same reading: a raw `pg` cursor reading `row_to_json` of every row of the table. Prints rows/s
// for each phase, the ratio of the backup to the baseline, and the RSS growth of this process
// (sampled every 20 ms). Asserts nothing.
//
// Environment: BENCH_BACKUP_ROWS, DATABASE_URL (a database is created for the run and dropped after).
import { sql } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { startPlatform } from '../../src/platform.ts';
import { openPostgres } from '../../src/storage/db.ts';
import { schemaNameForApp, tableNameForModel } from '../../src/definition/naming.ts';
import { loadExample } from '../../test/support/examples.ts';
import type { JobRecord } from '../../src/jobs/store.ts';

const ROWS = Number(process.env.BENCH_BACKUP_ROWS ?? 1_000_000);
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function measured<T>(work: () => Promise<T>): Promise<{ seconds: number; rssGrowthMb: number; value: T }> {
  const start = process.memoryUsage.rss();
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 20);
  const began = performance.now();
  try {
    const value = await work();
    return { seconds: (performance.now() - began) / 1000, rssGrowthMb: (peak - start) / 1024 / 1024, value };
  } finally {
    clearInterval(timer);
  }
}

async function main(): Promise<void> {
  const name = `appbuilder_bench_backup_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  process.env.APPBUILDER_MASTER_KEY ||= Buffer.alloc(32, 0x5a).toString('base64');
  const db = await openPostgres(url.toString(), 10, 0);
  const config = loadConfig(process.env, { port: 0, host: '127.0.0.1', databaseUrl: url.toString() });
  const platform = await startPlatform(config, { db, logger: false });
  try {
    const { services } = platform;
    const customerId = (await services.customers.create('Bench')).id;
    const project = await services.projects.create(customerId, { name: 'Bench' });
    const app = await services.applications.create(customerId, { projectId: project.id, name: 'Bench', scode: loadExample('todo').scode });
    await services.deployments.publish(customerId, app.id);
    const schema = schemaNameForApp(app.id);
    const todo = `"${schema}"."${tableNameForModel('urn:svc:model:todo')}"`;
    const user = `"${schema}"."${tableNameForModel('urn:svc:model:user')}"`;
    for (let i = 0; ; i++) {
      const exists = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_schema = ${schema}`.execute(db.kysely);
      if (exists.rows[0]!.n > 0) break;
      if (i > 600) throw new Error('the deployment did not run');
      await sleep(100);
    }
    console.log(`filling ${ROWS} rows…`);
    const columns = await sql<{ name: string; type: string; nullable: string; generated: string }>`select column_name as name, data_type as type, is_nullable as nullable, is_generated as generated
      from information_schema.columns where table_schema = ${schema} and table_name = ${tableNameForModel('urn:svc:model:todo')} order by ordinal_position`.execute(db.kysely);
    const userColumns = await sql<{ name: string; nullable: string; type: string }>`select column_name as name, is_nullable as nullable, data_type as type from information_schema.columns
      where table_schema = ${schema} and table_name = ${tableNameForModel('urn:svc:model:user')} and is_generated = 'NEVER' order by ordinal_position`.execute(db.kysely);
    const userId = '0190a000-0000-7000-8000-0000000000aa';
    const userValues = userColumns.rows.map((c) => (c.name === 'id' ? `'${userId}'` : c.type === 'text' ? `'user'` : 'default'));
    await sql.raw(`insert into ${user} (${userColumns.rows.map((c) => `"${c.name}"`).join(', ')}) values (${userValues.join(', ')})`).execute(db.kysely);
    const writable = columns.rows.filter((c) => c.generated === 'NEVER');
    const values = writable.map((c) => {
      if (c.name === 'id') return 'gen_random_uuid()';
      if (c.type === 'uuid') return `'${userId}'::uuid`;
      if (c.type === 'text') return `'todo ' || i`;
      if (c.type.startsWith('timestamp')) return `now() - i * interval '1 minute'`;
      return 'default';
    });
    await sql.raw(`insert into ${todo} (${writable.map((c) => `"${c.name}"`).join(', ')}) select ${values.join(', ')} from generate_series(1, ${ROWS}) i`).execute(db.kysely);
    await sql.raw(`analyze ${todo}`).execute(db.kysely);

    const baseline = await measured(async () => {
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      await client.query('begin');
      await client.query(`declare c no scroll cursor for select row_to_json(t)::text as j from ${todo} t`);
      let read = 0;
      for (;;) {
        const page = await client.query('fetch 5000 from c');
        read += page.rows.length;
        if (page.rows.length < 5000) break;
      }
      await client.query('commit');
      await client.end();
      return read;
    });

    const waitJob = async (id: string): Promise<JobRecord> => {
      for (;;) {
        const job = await services.jobs.get(id);
        if (job?.status === 'succeeded') return job;
        if (job?.status === 'failed') throw new Error(job.errorMessage);
        await sleep(100);
      }
    };
    const backup = await measured(async () => {
      const queued = await services.backups.create(customerId, app.id);
      return waitJob(queued.jobId);
    });
    const backupId = String(backup.value.metadata.backupId);
    const record = await services.backups.get(customerId, app.id, backupId);
    const backedUpS = Number(backup.value.metadata.backedUpMs) / 1000;
    const verifiedS = Number(backup.value.metadata.verifiedMs) / 1000;
    const restore = await measured(async () => {
      const queued = await services.backups.restore(customerId, app.id, backupId);
      return waitJob(queued.jobId);
    });
    const rate = (seconds: number) => Math.round(ROWS / seconds).toLocaleString('en');
    console.log(`rows: ${ROWS.toLocaleString('en')}; archive ${(Number(record.bytes) / 1024 / 1024).toFixed(1)} MB, verified: ${record.verified}`);
    console.log(`baseline (raw pg cursor, row_to_json): ${baseline.seconds.toFixed(1)} s, ${rate(baseline.seconds)} rows/s`);
    console.log(`backup (archive written and stored):  ${backedUpS.toFixed(1)} s, ${rate(backedUpS)} rows/s, ratio to baseline ${(baseline.seconds / backedUpS).toFixed(2)}`);
    console.log(`verify (restore drill):               ${verifiedS.toFixed(1)} s, ${rate(verifiedS)} rows/s`);
    console.log(`backup job in all:                    ${backup.seconds.toFixed(1)} s, RSS growth ${backup.rssGrowthMb.toFixed(0)} MB`);
    console.log(`restore in place (job):               ${restore.seconds.toFixed(1)} s, ${rate(restore.seconds)} rows/s, RSS growth ${restore.rssGrowthMb.toFixed(0)} MB`);
  } finally {
    await platform.close();
    await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.end();
  }
}

await main();
