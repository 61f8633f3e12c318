import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../support/databases.ts';
import type { TestPlatform } from '../support/platform.ts';
import { createTenant, createTodoApp } from '../support/tenant.ts';
import { ApiClient } from '../support/client.ts';
import { startOn, versionPath, waitForJob } from '../deployments/support.ts';
import { freePort } from '../support/ports.ts';

const hasPostgres = await postgresAvailable();
const BIN = fileURLToPath(new URL('../../bin/appbuilder.js', import.meta.url));

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!hasPostgres)('appbuilder serve --role (PostgreSQL)', () => {
  let database: TestDatabase;
  let api: TestPlatform;
  let worker: { child: ChildProcess; output: () => string } | undefined;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    api = await startOn(database, 'api');
  }, 60_000);

  afterAll(async () => {
    if (worker && worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await api?.close();
    await database?.drop();
  }, 60_000);

  it('an api process only sends jobs; a worker process opens no port and takes them', async () => {
    const tenant = await createTenant(api, 'Roles');
    const app = await createTodoApp(tenant);
    const published = await tenant.api.post<{ status: { jobs: Array<{ id: string; jobType: string; status: string }> } }>(`/v1/applications/${app.id}/publish`, {});
    expect(published.status).toBe(202);
    const job = published.body.status.jobs.find((j) => j.jobType === 'deployment')!;
    // Nobody takes it here: the api role does not work.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const waiting = await tenant.api.get<{ jobs: Array<{ id: string; status: string }> }>(`/v1/applications/${app.id}/status`);
    expect(waiting.body.jobs.find((j) => j.id === job.id)!.status).toBe('queued');

    const port = await freePort();
    let output = '';
    const child = spawn(process.execPath, [BIN, 'serve', '--role', 'worker', '--port', String(port), '--host', '127.0.0.1'], {
      env: { ...process.env, DATABASE_URL: database.url!, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    worker = { child, output: () => output };
    await until(() => output.includes('appbuilder worker') || child.exitCode !== null, 60_000, 'the worker to start');
    expect(output).toContain('appbuilder worker taking jobs');
    expect(output).not.toContain('listening on');

    const done = await waitForJob(tenant, app.id, job.id);
    expect(done.status).toBe('succeeded');
    // The version is deployed by the worker and served by a runtime process, not by the api process.
    const runtime = await startOn(database, 'runtime');
    try {
      const onRuntime = new ApiClient(runtime.baseUrl, tenant.api.apiKey);
      onRuntime.token = tenant.api.token;
      const list = await onRuntime.get<{ items: unknown[]; total: number }>(`${versionPath(runtime, app.id, app.serverVersion)}/toDos`);
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({ items: [], total: 0 });
      expect((await tenant.api.get(`${versionPath(api, app.id, app.serverVersion)}/toDos`)).status).toBe(404);
    } finally {
      await runtime.close();
    }
    // The worker listens nowhere: its --port refuses connections.
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();

    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  }, 120_000);

  it('refuses an unknown role', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--role', 'janitor'], { env: { ...process.env, DATABASE_URL: database.url!, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const [code] = await once(child, 'exit');
    expect(code).not.toBe(0);
    expect(output).toContain("--role is one of all, api, runtime, worker, not 'janitor'");
  }, 60_000);
});
