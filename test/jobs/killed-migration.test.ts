/**
 * Must show (issues 4 and 22): kill -9 of workers in the middle of a migration, on PostgreSQL,
 * twice. A real `appbuilder serve --role worker` process takes a deployment whose migration
 * converts 200,000 stored values; it is killed while PostgreSQL runs the conversion inside
 * runDeployment's transaction. The schema stays the old one (the transaction dies with the
 * connection) and the previous version keeps serving; the job's heartbeat stops, a second
 * worker process retries it and is killed the same way; a third finishes the job (retries
 * with backoff, 3 of them): the schema is then the new one, and no row is lost.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnNameForField, schemaNameForApp, tableNameForModel } from '../../src/definition/naming.ts';
import { ident } from '../../src/storage/sql.ts';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../support/databases.ts';
import type { TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp, type AppReply, type Tenant } from '../support/tenant.ts';
import { ApiClient } from '../support/client.ts';
import { todoScode } from '../support/examples.ts';
import { publishAndWait, startOn, versionPath, waitForJob } from '../deployments/support.ts';
import { FAST, waitFor } from './support.ts';

const hasPostgres = await postgresAvailable();
if (!hasPostgres) console.warn('[tests] killed-migration: PostgreSQL does not answer; skipped.');

const BIN = fileURLToPath(new URL('../../bin/appbuilder.js', import.meta.url));
const ROWS = 200_000;
const TODO = 'urn:svc:model:todo';
const USER = 'urn:svc:model:user';
const DESCRIPTION = 'urn:svc:edge:todo-description';
const PRIORITY = 'urn:svc:edge:todo-priority';

function startWorker(url: string): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, [BIN, 'serve', '--role', 'worker'], {
    env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

describe.skipIf(!hasPostgres)('kill -9 of workers, twice, in the middle of a migration (PostgreSQL)', () => {
  let database: TestDatabase;
  let api: TestPlatform;
  /** Serves the generated apps (the api process serves only the management API). */
  let runtime: TestPlatform;
  let onRuntime: ApiClient;
  let tenant: Tenant;
  let app: AppReply;
  const children: ChildProcess[] = [];
  const q = (text: ReturnType<typeof sql>) => text.execute(database.db.kysely);

  const schemaState = async () => {
    const schema = schemaNameForApp(app.id);
    const columns = await sql<{ column_name: string; data_type: string }>`
      select column_name, data_type from information_schema.columns
      where table_schema = ${schema} and table_name = ${tableNameForModel(TODO)}`.execute(database.db.kysely);
    const types = Object.fromEntries(columns.rows.map((c) => [c.column_name, c.data_type]));
    const deployed = await database.db.kysely.selectFrom('appbuilder.app_schemas').select('server_version').where('application_id', '=', app.id).executeTakeFirst();
    const active = await database.db.kysely
      .selectFrom('appbuilder.deployments')
      .select('server_version')
      .where('application_id', '=', app.id)
      .where('state', '=', 'active')
      .orderBy('server_version')
      .execute();
    return {
      description: types[columnNameForField(DESCRIPTION)],
      priority: types[columnNameForField(PRIORITY)] ?? null,
      deployed: deployed?.server_version,
      active: active.map((a) => a.server_version),
    };
  };

  const rowFacts = async () => {
    const schema = schemaNameForApp(app.id);
    const todos = ident(schema, tableNameForModel(TODO));
    const description = ident(columnNameForField(DESCRIPTION));
    const result = await sql<{ n: number; total: number; users: number }>`
      select (select count(*)::int from ${todos}) as n,
             (select sum(${description}::double precision)::float8 from ${todos}) as total,
             (select count(*)::int from ${ident(schema, tableNameForModel(USER))}) as users`.execute(database.db.kysely);
    return result.rows[0];
  };

  beforeAll(async () => {
    // The test's own handle is unbounded (its seed takes seconds on a busy machine); the workers have the default bound.
    database = await createTestDatabase('postgres', { statementTimeoutMs: 0 });
    api = await startOn(database, 'api', FAST);
    runtime = await startOn(database, 'runtime', FAST);
    tenant = await createTenant(api, 'Kill -9');
    onRuntime = new ApiClient(runtime.baseUrl, tenant.api.apiKey);
    onRuntime.token = tenant.api.token;
    app = await createTodoApp(tenant);
    // v1 is deployed by a worker that then goes away.
    const first = await startOn(database, 'worker', FAST);
    await publishAndWait(tenant, app.id);
    await first.close();

    // 200,000 to-dos whose text description holds a number, written straight into the table.
    const schema = schemaNameForApp(app.id);
    const user = await sql<{ id: string }>`
      insert into ${ident(schema, tableNameForModel(USER))} (${ident(columnNameForField('urn:svc:edge:user-name'))}, ${ident(columnNameForField('urn:svc:edge:user-email'))})
      values ('Seed', 'seed@example.com') returning id`.execute(database.db.kysely);
    const col = (id: string) => ident(columnNameForField(id));
    await q(sql`
      insert into ${ident(schema, tableNameForModel(TODO))}
        (${col('urn:svc:edge:todo-title')}, ${col(DESCRIPTION)}, ${col('urn:svc:edge:todo-status')}, ${col('urn:svc:edge:todo-user')})
      select 'To-do ' || i, i::text, 'open', ${user.rows[0].id}::uuid from generate_series(1, ${ROWS}::int) i`);

    // v2 converts the description to a number and adds a field: half a migration would show.
    const scode = todoScode();
    const model = scode.models.find((m) => m.id === TODO) as { fields: Array<Record<string, unknown>> };
    model.fields.find((f) => f.id === DESCRIPTION)!.to = 'p_NUMBER';
    model.fields.push({ id: PRIORITY, name: 'priority', relationshipOwner: true, min: 0, max: 1, to: 'p_NUMBER', accessControl: { rules: [] } });
    const replaced = await tenant.api.put<AppReply>(`/v1/applications/${app.id}/scode`, scode);
    expect(replaced.status).toBe(200);
  }, 300_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await runtime?.close();
    await api?.close();
    await database?.drop();
  }, 60_000);

  it('leaves the old schema twice, is finished by a third worker, and loses no row', async () => {
    const v1 = app.serverVersion;
    const v2 = (await tenant.api.get<AppReply>(`/v1/applications/${app.id}`)).body.serverVersion;
    const before = await rowFacts();
    expect(before).toEqual({ n: ROWS, total: (ROWS * (ROWS + 1)) / 2, users: 1 });
    expect(await schemaState()).toEqual({ description: 'text', priority: null, deployed: v1, active: [v1] });

    const published = await tenant.api.post<AppReply>(`/v1/applications/${app.id}/publish`, { serverVersion: v2 });
    expect(published.status).toBe(202);
    const jobId = published.body.status.jobs.find((j) => j.jobType === 'deployment')!.id;

    // A worker takes the job (the first, then the retry); it is killed while PostgreSQL converts the rows for it.
    // The migration's statements run inside one `do` block (src/compiler/schema/batch.ts), so
    // pg_stat_activity shows the block, not the statement it is at: the conversion is running when
    // the block holding it is still active and its backend already holds the to-do table's
    // ACCESS EXCLUSIVE lock (taken by the block's first statement, the instant `add column`, and
    // then by the conversion; the block ends with the conversion).
    const schema = schemaNameForApp(app.id);
    const todoTable = tableNameForModel(TODO);
    let killedAt = 0;
    for (let kill = 1; kill <= 2; kill++) {
      const worker = startWorker(database.url!);
      children.push(worker.child);
      const converting = await waitFor(
        async () => {
          const result = await sql<{ pid: number; xact_start: Date }>`
            select a.pid, a.xact_start from pg_stat_activity a
            where a.datname = current_database() and a.state = 'active' and a.pid <> pg_backend_pid()
              and a.query like 'do %alter table %alter column % type double precision using %'
              and exists (
                select 1 from pg_locks l
                join pg_class c on c.oid = l.relation join pg_namespace n on n.oid = c.relnamespace
                where l.pid = a.pid and l.granted and l.mode = 'AccessExclusiveLock'
                  and n.nspname = ${schema} and c.relname = ${todoTable})`.execute(database.db.kysely);
          if (worker.child.exitCode !== null) throw new Error(`the worker exited: ${worker.output()}`);
          return result.rows[0];
        },
        (row) => row !== undefined,
        120_000,
      );
      worker.child.kill('SIGKILL');
      await once(worker.child, 'exit');
      killedAt = Date.now();
      const job = await database.db.kysely.selectFrom('appbuilder.jobs').select(['status']).where('id', '=', jobId).executeTakeFirstOrThrow();
      expect(job.status).toBe('running');

      // Its backend ends the statement, finds the client gone and rolls the transaction back.
      await waitFor(
        async () => (await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where pid = ${converting.pid}`.execute(database.db.kysely)).rows[0].n,
        (n) => n === 0,
        60_000,
      );
      expect(await schemaState()).toEqual({ description: 'text', priority: null, deployed: v1, active: [v1] });
      expect(await rowFacts()).toEqual(before);
      // The previous version is still served meanwhile.
      const served = await onRuntime.get<{ total: number }>(`${versionPath(runtime, app.id, v1)}/toDos?limit=1`);
      expect(served.status).toBe(200);
      console.log(`[killed-migration] worker ${kill} killed during the conversion; v${v1} still served`);
    }

    // Another worker process takes the job over once the heartbeat has gone quiet.
    const third = startWorker(database.url!);
    children.push(third.child);
    const done = await waitForJob(tenant, app.id, jobId, 120_000);
    const takeoverSeconds = (Date.now() - killedAt) / 1000;
    console.log(`[killed-migration] ${ROWS} rows; the job succeeded ${takeoverSeconds.toFixed(1)} s after the second kill`);
    expect(done.status).toBe('succeeded');
    expect(takeoverSeconds).toBeLessThan(60);

    expect(await schemaState()).toEqual({ description: 'double precision', priority: 'double precision', deployed: v2, active: [v1, v2] });
    expect(await rowFacts()).toEqual(before);
    const page = await onRuntime.get<{ items: Array<{ description: unknown; priority: unknown }>; total: number }>(
      `${versionPath(runtime, app.id, v2)}/toDos?limit=1&sort=-description`,
    );
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(ROWS);
    expect(page.body.items[0]).toMatchObject({ description: ROWS, priority: null });

    third.child.kill('SIGTERM');
    expect((await once(third.child, 'exit'))[0]).toBe(0);
  }, 300_000);
});
