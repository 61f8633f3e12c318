/**
 * Must show (issue 17): the roles as separate processes on one PostgreSQL database. Two
 * `serve --role runtime`, one `--role worker`, one `--role api`, each a real `node` process on
 * the CLI entry. A publish through the api is taken by the worker at once (NOTIFY) and served by
 * both runtimes; an unpublish reaches both runtimes through NOTIFY. A worker killed with SIGKILL
 * in the middle of a deployment leaves it to another worker started afterwards, which completes
 * it once: one migration record, one active deployment of the version, the job succeeded.
 *
 * The figures (publish → both runtimes serve; unpublish → both stop) are printed, not asserted
 * (the machine is shared); the states are asserted.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnNameForField, schemaNameForApp, tableNameForModel } from '../../src/definition/naming.ts';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../support/databases.ts';
import { ApiClient } from '../support/client.ts';
import { BOOTSTRAP } from '../support/platform.ts';
import { todoScode } from '../support/examples.ts';
import type { AppReply } from '../support/tenant.ts';
import { startServe, type ServeProcess } from './serve-processes.ts';

const hasPostgres = await postgresAvailable();
if (!hasPostgres) console.warn('[tests] multi-process: PostgreSQL does not answer; skipped (CI has it).');

const TODO = 'urn:svc:model:todo';
const PRIORITY = 'urn:svc:edge:todo-priority';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface JobView {
  id: string;
  jobType: string;
  status: string;
}

describe.skipIf(!hasPostgres)('api, two runtimes and a worker as separate processes (PostgreSQL)', () => {
  let database: TestDatabase;
  let api: ServeProcess;
  let runtimes: ServeProcess[] = [];
  const workers: ServeProcess[] = [];
  let client: ApiClient;
  let app: AppReply;

  /** How long until `url` answers `status` (ms); `timeoutMs` is a liveness bound, not a figure. */
  const until = async (url: string, status: number, timeoutMs = 15_000): Promise<number> => {
    const start = performance.now();
    for (;;) {
      const reply = await fetch(url, { headers: { authorization: `Bearer ${client.token}`, 'x-svc-api-client': client.apiKey! } });
      await reply.arrayBuffer();
      if (reply.status === status) return performance.now() - start;
      if (performance.now() - start > timeoutMs) throw new Error(`${url} answers ${reply.status}, not ${status}, after ${timeoutMs} ms`);
      await sleep(5);
    }
  };
  const toDos = (runtime: ServeProcess, version: string) => `${runtime.url}/apps/${app.id}/api/v${version}/toDos?limit=1`;
  const jobsOf = async () => (await client.get<{ jobs: JobView[] }>(`/v1/applications/${app.id}/status`)).body.jobs;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // The api first: it migrates the empty database and creates the bootstrap client.
    api = await startServe('api', database.url!);
    runtimes = await Promise.all([startServe('runtime', database.url!), startServe('runtime', database.url!)]);
    workers.push(await startServe('worker', database.url!));
    const admin = await ApiClient.login(api.url, { apiKey: BOOTSTRAP.id, secret: BOOTSTRAP.secret });
    const customer = await admin.post<{ apiClient: { apiKey: string; secret: string } }>('/v1/customers', { name: 'Processes' });
    client = await ApiClient.login(api.url, customer.body.apiClient);
    const project = await client.post<{ id: string }>('/v1/projects', { name: 'Processes project' });
    const created = await client.post<AppReply>('/v1/applications', { projectId: project.body.id, name: 'To-do', scode: todoScode() });
    expect(created.status).toBe(201);
    app = created.body;
  }, 300_000);

  afterAll(async () => {
    for (const p of [...workers, ...runtimes, api]) if (p) await p.stop().catch(() => null);
    await database?.drop();
  }, 60_000);

  it('each role serves only its part', async () => {
    // A runtime has no management API (the api's lack of generated apps is seen once one is published).
    expect((await fetch(`${runtimes[0].url}/v1/projects`, { headers: { authorization: `Bearer ${client.token}` } })).status).toBe(404);
    expect((await fetch(`${runtimes[0].url}/v1/openapi.json`)).status).toBe(404);
    expect((await fetch(`${runtimes[0].url}/readyz`)).status).toBe(200);
    expect(api.output()).toContain('role api: management API only');
    expect(runtimes[0].output()).toContain('appbuilder runtime listening on');
    expect(workers[0].output()).toContain('appbuilder worker taking jobs (no HTTP)');
  });

  it('a publish through the api is taken at once and served by both runtimes; an unpublish stops both', async () => {
    const start = performance.now();
    const published = await client.post<AppReply>(`/v1/applications/${app.id}/publish`, {});
    expect(published.status).toBe(202);
    const served = await Promise.all(runtimes.map((runtime) => until(toDos(runtime, app.serverVersion), 200)));
    const total = performance.now() - start;
    console.log(`[multi-process] publish → both runtimes serve: ${total.toFixed(0)} ms (runtimes at ${served.map((ms) => ms.toFixed(0)).join(' / ')} ms)`);
    const job = (await jobsOf()).find((j) => j.jobType === 'deployment')!;
    expect(job.status).toBe('succeeded');
    // The api process serves no generated app, not even a published one.
    expect((await fetch(toDos(api, app.serverVersion), { headers: { authorization: `Bearer ${client.token}`, 'x-svc-api-client': client.apiKey! } })).status).toBe(404);

    // Both have compiled and cached the version; only a notice can make them forget it.
    const unpublishedAt = performance.now();
    expect((await client.post(`/v1/applications/${app.id}/unpublish`, {})).status).toBe(200);
    const stopped = await Promise.all(runtimes.map((runtime) => until(toDos(runtime, app.serverVersion), 404)));
    console.log(`[multi-process] unpublish → both runtimes stop: ${(performance.now() - unpublishedAt).toFixed(0)} ms (${stopped.map((ms) => ms.toFixed(0)).join(' / ')} ms)`);
    const again = await client.post<AppReply>(`/v1/applications/${app.id}/publish`, {});
    expect(again.status).toBe(202);
    await Promise.all(runtimes.map((runtime) => until(toDos(runtime, app.serverVersion), 200)));
  });

  it('a worker killed with SIGKILL mid-deployment: another worker completes the deployment once', async () => {
    const scode = todoScode();
    const model = scode.models.find((m) => m.id === TODO) as { fields: Array<Record<string, unknown>> };
    model.fields.push({ id: PRIORITY, name: 'priority', relationshipOwner: true, min: 0, max: 1, to: 'p_NUMBER', accessControl: { rules: [] } });
    const replaced = await client.put<AppReply>(`/v1/applications/${app.id}/scode`, scode);
    expect(replaced.status).toBe(200);
    const v2 = replaced.body.serverVersion;

    // Hold the deployed-schema row: the worker's deployment transaction migrates, then waits on it.
    const holder = new pg.Client({ connectionString: database.url! });
    await holder.connect();
    let jobId = '';
    try {
      await holder.query('begin');
      await holder.query('select * from appbuilder.app_schemas where application_id = $1 for update', [app.id]);
      const known = new Set((await jobsOf()).map((j) => j.id));
      const published = await client.post<AppReply>(`/v1/applications/${app.id}/publish`, { serverVersion: v2 });
      expect(published.status).toBe(202);
      jobId = published.body.status.jobs.find((j) => j.jobType === 'deployment' && !known.has(j.id))!.id;
      const waiting = async () =>
        (
          await sql<{ pid: number }>`
            select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'
              and query ilike '%app_schemas%'`.execute(database.db.kysely)
        ).rows[0];
      for (let i = 0; !(await waiting()); i++) {
        if (i > 600) throw new Error(`the worker never reached the deployment's write: ${workers[0].output()}`);
        await sleep(50);
      }
      expect((await jobsOf()).find((j) => j.id === jobId)!.status).toBe('running');
      workers[0].child.kill('SIGKILL');
      await new Promise((resolve) => workers[0].child.once('exit', resolve));
      await holder.query('rollback');
      // Nothing of v2 committed: its column is absent and v2 is not served.
      const columns = await sql<{ column_name: string }>`
        select column_name from information_schema.columns
        where table_schema = ${schemaNameForApp(app.id)} and table_name = ${tableNameForModel(TODO)}`.execute(database.db.kysely);
      expect(columns.rows.map((c) => c.column_name)).not.toContain(columnNameForField(PRIORITY));
      expect((await fetch(toDos(runtimes[0], v2), { headers: { authorization: `Bearer ${client.token}`, 'x-svc-api-client': client.apiKey! } })).status).toBe(404);

      const killedAt = performance.now();
      workers.push(await startServe('worker', database.url!));
      await Promise.all(runtimes.map((runtime) => until(toDos(runtime, v2), 200, 120_000)));
      console.log(`[multi-process] killed worker → v${v2} served by both runtimes after ${((performance.now() - killedAt) / 1000).toFixed(1)} s (heartbeat expiry, retry, a new worker)`);
      const job = (await jobsOf()).find((j) => j.id === jobId)!;
      expect(job.status).toBe('succeeded');
    } finally {
      await holder.end().catch(() => {});
    }
    const migrations = await database.db.kysely.selectFrom('appbuilder.app_migrations').select('server_version').where('application_id', '=', app.id).execute();
    expect(migrations.filter((m) => m.server_version === v2)).toHaveLength(1);
    const deployments = await database.db.kysely.selectFrom('appbuilder.deployments').select(['server_version', 'state']).where('application_id', '=', app.id).execute();
    expect(deployments.filter((d) => d.server_version === v2)).toEqual([{ server_version: v2, state: 'active' }]);
    // One pg-boss job (its id is the row's), completed on a retry after the killed attempt.
    const queued = await sql<{ state: string; retry_count: number }>`
      select state, retry_count from pgboss.job where name = 'deployment' and id = ${jobId}::uuid`.execute(database.db.kysely);
    expect(queued.rows).toHaveLength(1);
    expect(queued.rows[0].state).toBe('completed');
    expect(queued.rows[0].retry_count).toBeGreaterThanOrEqual(1);
  });
});

describe('a role on the embedded store', () => {
  it.each(['api', 'runtime', 'worker'] as const)('--role %s without DATABASE_URL is refused with the reason, before the store is opened', async (role) => {
    const dataDir = join(tmpdir(), `appbuilder-role-${role}-${process.pid}-${Date.now()}`);
    await expect(startServe(role, '', { APPBUILDER_DATA_DIR: dataDir })).rejects.toThrow(new RegExp(`--role ${role} needs PostgreSQL \\(set DATABASE_URL\\)`));
    // No data dir (nor its lock) was created.
    expect(existsSync(dataDir)).toBe(false);
  });
});
