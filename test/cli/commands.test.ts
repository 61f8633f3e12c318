import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, cliStarted, signup, startService, waitFor, type RunningService } from './support.ts';
import { EXAMPLES_DIR, loadExample } from '../support/examples.ts';
import { fetchAppOrigin } from '../support/app-origin.ts';

// One service for the whole file: each command is run against the state the previous ones left.
let service: RunningService;
const work = mkdtempSync(join(tmpdir(), 'appbuilder-cli-work-'));
const TODO_FILE = join(EXAMPLES_DIR, 'todo.app.json');
const TODO_MODEL = 'urn:svc:model:todo';

beforeAll(async () => {
  service = await startService();
}, 300_000);
afterAll(async () => {
  await service?.stop();
  rmSync(work, { recursive: true, force: true });
});

const json = <T>(stdout: string): T => JSON.parse(stdout) as T;

interface Deployment {
  serverVersion: string;
  state: string;
  apiUrl?: string;
  docsUrl?: string;
  openapiUrl?: string;
}

describe('appbuilder login', { timeout: 300_000 }, () => {
  it('checks the credentials, saves them 0600 under XDG_CONFIG_HOME, and later commands use them', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'appbuilder-cli-login-'));
    const env = { XDG_CONFIG_HOME: configDir, APPBUILDER_URL: '', APPBUILDER_CLIENT_ID: '', APPBUILDER_CLIENT_SECRET: '' };
    const wrong = await cli(['login', '--url', service.url, '--client-id', service.customer.apiKey, '--client-secret', 'sk_wrong'], env);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/appbuilder: 401/);
    expect(existsSync(join(configDir, 'appbuilder', 'credentials.json'))).toBe(false);

    const login = await cli(
      ['login', '--url', service.url, '--client-id', service.customer.apiKey, '--client-secret', service.customer.secret, '--json'],
      env,
    );
    expect(login.code).toBe(0);
    const path = join(configDir, 'appbuilder', 'credentials.json');
    expect(json(login.stdout)).toEqual({ url: service.url, clientId: service.customer.apiKey, path });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toContain(service.customer.secret);
    expect(login.stdout).not.toContain(service.customer.secret); // the secret is stored, never printed

    // With the environment empty, a command reads the saved login: an unknown app is the service's 404 answer.
    const missing = await cli(['status', '00000000-0000-4000-8000-000000000000'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/appbuilder: 404/);
    rmSync(configDir, { recursive: true, force: true });

    const none = await cli(['status', 'todo'], { ...env, XDG_CONFIG_HOME: join(work, 'nowhere') });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('run `appbuilder login`');
  });
});

describe('appbuilder apply', { timeout: 300_000 }, () => {
  it('creates the application, then updates the one with the same appId with the version bump and what changed', async () => {
    const created = await cli(['apply', '-f', TODO_FILE, '--project', 'Demo', '--json'], service.env);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const first = json<{ action: string; applicationId: string; appId: string; serverVersion: string; changes: { models: { added: string[] } } }>(
      created.stdout,
    );
    expect(first).toMatchObject({ action: 'created', appId: 'todo', fromVersion: null });
    expect(first.changes.models.added.sort()).toEqual(['urn:svc:model:todo', 'urn:svc:model:user']);

    // A new field on ToDo: the same application gets a new version.
    const example = loadExample('todo');
    const todo = example.scode.models.find((model) => model.id === TODO_MODEL)! as { fields: Array<Record<string, unknown>> };
    todo.fields.push({ id: 'urn:svc:edge:todo-priority', name: 'priority', relationshipOwner: true, min: 0, max: 1, to: 'p_NUMBER', accessControl: { rules: [] } });
    const changedFile = join(work, 'todo-priority.app.json');
    writeFileSync(changedFile, JSON.stringify(example));
    const updated = await cli(['apply', '-f', changedFile, '--project', 'Demo', '--json'], service.env);
    expect(updated.code).toBe(0);
    const second = json<{ action: string; applicationId: string; fromVersion: string; serverVersion: string; changes: Record<string, { added: string[]; changed: string[]; removed: string[] }> }>(
      updated.stdout,
    );
    expect(second).toMatchObject({ action: 'updated', applicationId: first.applicationId, fromVersion: first.serverVersion });
    expect(second.serverVersion).not.toBe(first.serverVersion);
    expect(second.changes.models).toEqual({ added: [], changed: [TODO_MODEL], removed: [] });
    expect(second.changes.actions).toEqual({ added: [], changed: [], removed: [] });

    // The human line says the same.
    const again = await cli(['apply', '-f', TODO_FILE, '--project', 'Demo'], service.env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`Updated todo (${first.applicationId}) in project Demo: v${second.serverVersion} → v`);
    expect(again.stdout).toContain('models ~1');
  });

  it('a definition the service refuses (409) exits non-zero with the problem and its path on stderr, nothing on stdout', async () => {
    const example = loadExample('todo');
    (example.scode.triggers as Array<{ actionId: string }>)[0]!.actionId = 'urn:svc:action:missing';
    example.scode.appId = 'broken';
    const file = join(work, 'broken.app.json');
    writeFileSync(file, JSON.stringify(example));
    const failed = await cli(['apply', '-f', file, '--project', 'Demo', '--json'], service.env);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toMatch(/^appbuilder: 409 /);
    expect(failed.stderr).toContain('/triggers/0/actionId');
    // Nothing was created.
    const status = await cli(['status', 'broken'], service.env);
    expect(status.code).toBe(1);
    expect(status.stderr).toContain('no application with the id, appId or name broken');
  });
});

describe('appbuilder publish, status, open, runs, bundle and unpublish', { timeout: 300_000 }, () => {
  let apiUrl = '';

  it('publish --wait serves the current version and answers where', async () => {
    const published = await cli(['publish', 'todo', '--wait', '--json'], service.env);
    expect(published.stderr).toBe('');
    expect(published.code).toBe(0);
    const answer = json<{ serverVersion: string; jobId: string; deployments: Deployment[] }>(published.stdout);
    expect(answer.jobId).toMatch(/^[0-9a-f-]{36}$/);
    const served = answer.deployments.find((d) => d.serverVersion === answer.serverVersion)!;
    expect(served.state).toBe('active');
    apiUrl = served.apiUrl!;
    expect(apiUrl).toContain(`/api/v${answer.serverVersion}`);
    expect((await fetch(`${apiUrl}/openapi.json`)).status).toBe(200);
  });

  it('status shows the version, the served versions and the jobs', async () => {
    const status = await cli(['status', 'todo', '--json'], service.env);
    expect(status.code).toBe(0);
    const answer = json<{ appId: string; serverVersion: string; isActive: boolean; deployments: Deployment[]; jobs: Array<{ jobType: string; status: string }> }>(
      status.stdout,
    );
    expect(answer).toMatchObject({ appId: 'todo', isActive: true });
    expect(answer.deployments.some((d) => d.state === 'active' && d.apiUrl === apiUrl)).toBe(true);
    expect(answer.jobs).toContainEqual(expect.objectContaining({ jobType: 'deployment', status: 'succeeded' }));
    const human = await cli(['status', 'todo'], service.env);
    expect(human.stdout).toContain(`v${answer.serverVersion}, served`);
    expect(human.stdout).toContain('job deployment succeeded');
  });

  it("status prints each served version's health line: health, 5xx rate over 5 minutes, last request", async () => {
    type Health = Deployment & { health: string; errorRate: number; recentRequests: number; lastRequestAt: string | null };
    const served = async () => {
      const status = await cli(['status', 'todo', '--json'], service.env);
      expect(status.code).toBe(0);
      return json<{ deployments: Health[] }>(status.stdout).deployments.find((d) => d.apiUrl === apiUrl)!;
    };
    const before = await served();
    const sentAfter = Date.now();
    // Three answered by the app's routes and two unmatched (404): five requests, no 5xx.
    const statuses = [];
    for (const path of ['/toDos', '/toDos', '/toDos', '/no-such-route', '/no-such-route']) statuses.push((await fetch(`${apiUrl}${path}`)).status);
    expect(statuses.every((s) => s < 500)).toBe(true);
    const after = await served();
    expect(after).toMatchObject({ health: 'ok', errorRate: 0, recentRequests: before.recentRequests + 5 });
    expect(Date.parse(after.lastRequestAt!)).toBeGreaterThanOrEqual(sentAfter - 1000);
    const human = await cli(['status', 'todo'], service.env);
    const lines = human.stdout.split('\n');
    const deploymentLine = lines.findIndex((line) => line.startsWith(`v${after.serverVersion} active`));
    expect(lines[deploymentLine + 1]).toBe(
      `  health ok: 0.0 % 5xx of ${after.recentRequests} requests in the last 5 min, last request ${after.lastRequestAt}`,
    );
  });

  it('open prints the API, docs, OpenAPI and typed-client addresses, which answer', async () => {
    const open = await cli(['open', 'todo', '--json'], service.env);
    expect(open.code).toBe(0);
    const { appUrl, versions } = json<{ appUrl: string; versions: Array<Deployment & { frontendBundleUrl?: string; clientUrl?: string; frontendUrl?: string }> }>(open.stdout);
    const served = versions.find((v) => v.apiUrl === apiUrl)!;
    // The reference page (HTML) is on the app's own origin; the JSON on the path form.
    expect(appUrl).toMatch(/^http:\/\/[0-9a-f-]{36}\.localhost:\d+$/);
    expect(served.docsUrl).toBe(`${appUrl}/api/v${served.serverVersion}/docs`);
    expect((await fetchAppOrigin(served.docsUrl!)).status).toBe(200);
    expect((await fetch(served.openapiUrl!)).status).toBe(200);
    expect(served.clientUrl).toBe(`${apiUrl}/client.ts`);
    expect(await (await fetch(served.clientUrl!)).text()).toContain('export function createClient');
    expect(served.frontendBundleUrl).toContain('/frontendBundle');
    // The web frontend, served on the app's own origin with its API.
    expect(served.frontendUrl).toBe(`${appUrl}/v${served.serverVersion}/`);
    expect((await fetchAppOrigin(served.frontendUrl!)).headers.get('content-type')).toMatch(/^text\/html/);
    expect((await cli(['open', 'todo'], service.env)).stdout).toContain(`API:      ${apiUrl}`);
  });

  it('runs lists the runs of the actions, and --follow prints a new one as it happens', async () => {
    await signup(apiUrl, 'Ann'); // User.created → the welcome action
    let items: Array<{ actionId: string; status: string }> = [];
    // The event's run is recorded shortly after the signup: ask until it is there.
    for (let i = 0; i < 60 && items.length === 0; i++) {
      const runs = await cli(['runs', 'todo', '--json'], service.env).then((r) => json<{ items: typeof items }>(r.stdout));
      items = runs.items;
      if (items.length === 0) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(items[0]).toMatchObject({ actionId: 'urn:svc:action:welcome', status: 'succeeded' });

    const follow = cliStarted(['runs', 'todo', '--follow', '--json'], service.env);
    await waitFor(() => follow.stdout().split('\n').filter(Boolean).length === 1, 30_000, 'the first run line');
    await signup(apiUrl, 'Bob');
    await waitFor(() => follow.stdout().split('\n').filter(Boolean).length === 2, 30_000, 'the new run line');
    follow.child.kill('SIGINT');
    expect(await follow.exited).toBe(0);
    const lines = follow.stdout().trim().split('\n').map((l) => JSON.parse(l) as { id: string; actionId: string });
    expect(lines[1]!.actionId).toBe('urn:svc:action:welcome');
    expect(lines[1]!.id).not.toBe(lines[0]!.id);
  });

  it('bundle -o writes the frontend zip of the served version', async () => {
    const file = join(work, 'todo.zip');
    const bundle = await cli(['bundle', 'todo', '-o', file, '--json'], service.env);
    expect(bundle.stderr).toBe('');
    expect(bundle.code).toBe(0);
    const answer = json<{ file: string; bytes: number }>(bundle.stdout);
    const bytes = readFileSync(file);
    expect(answer).toMatchObject({ file, bytes: bytes.length });
    expect(bytes.subarray(0, 2).toString()).toBe('PK'); // a zip
    expect(bytes.includes(Buffer.from('index.html'))).toBe(true);
  });

  it('unpublish stops serving: the API answers 404 and open says there is nothing served', async () => {
    const unpublished = await cli(['unpublish', 'todo', '--json'], service.env);
    expect(unpublished.code).toBe(0);
    const { deployments } = json<{ deployments: Deployment[] }>(unpublished.stdout);
    expect(deployments.every((d) => d.state === 'inactive')).toBe(true);
    expect((await fetch(`${apiUrl}/openapi.json`)).status).toBe(404);
    const open = await cli(['open', 'todo'], service.env);
    expect(open.code).toBe(1);
    expect(open.stderr).toContain('has no served version');
  });
});
