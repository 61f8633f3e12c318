// The CLI tests: a real `appbuilder serve` on the embedded default (PGlite in a temp data dir), and
// the real `appbuilder` binary run against it as a user would, with credentials in the environment.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'appbuilder.js');
const ADMIN = { id: 'ak_cli_admin', secret: 'sk_cli_admin_secret_for_tests' };

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunningService {
  url: string;
  dataDir: string;
  /** A customer's API client: the CLI runs as it. */
  customer: { apiKey: string; secret: string };
  /** Environment for the CLI: credentials of the customer and a private config dir. */
  env: Record<string, string>;
  configDir: string;
  stop(): Promise<void>;
}

function spawnBin(args: string[], env: Record<string, string>, cwd?: string): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], cwd });
}

/** Runs `appbuilder ARGS` to its end. */
export function cli(args: string[], env: Record<string, string>, cwd?: string): Promise<Result> {
  const child = spawnBin(args, env, cwd);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Starts a long-running `appbuilder ARGS` (e.g. `runs --follow`); read its output as it comes. */
export function cliStarted(args: string[], env: Record<string, string>) {
  const child = spawnBin(args, env);
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stdout: () => stdout, exited };
}

export async function waitFor(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `appbuilder serve` on a fresh embedded store, and a customer created through it. */
export async function startService(): Promise<RunningService> {
  // One temp root: the store, its master key file (written beside the store) and the config dir.
  const root = mkdtempSync(join(tmpdir(), 'appbuilder-cli-'));
  const dataDir = join(root, 'data');
  const configDir = join(root, 'config');
  const server = spawnBin(['serve', '--port', '0', '--host', '127.0.0.1'], {
    APPBUILDER_DATA_DIR: dataDir,
    DATABASE_URL: '',
    LOG_LEVEL: 'warn',
    APPBUILDER_BOOTSTRAP_CLIENT_ID: ADMIN.id,
    APPBUILDER_BOOTSTRAP_CLIENT_SECRET: ADMIN.secret,
    APPBUILDER_AUTH_RATE_LIMIT: '0',
  });
  let output = '';
  server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => server.on('close', () => resolve()));
  const listening = /listening on (http:\/\/\S+)\/v1/;
  // Generous: the first start migrates a fresh store, and the test machine may be busy.
  await waitFor(() => listening.test(output), 240_000, 'the service to listen').catch(async (error: unknown) => {
    server.kill('SIGTERM');
    await exited;
    rmSync(root, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}: ${output}`);
  });
  const url = listening.exec(output)![1]!;

  const token = await fetch(`${url}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: ADMIN.id, client_secret: ADMIN.secret }),
  });
  const { access_token } = (await token.json()) as { access_token: string };
  const created = await fetch(`${url}/v1/customers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}`, 'x-svc-api-client': ADMIN.id },
    body: JSON.stringify({ name: 'Cli Customer' }),
  });
  const { apiClient } = (await created.json()) as { apiClient: { apiKey: string; secret: string } };
  return {
    url,
    dataDir,
    customer: apiClient,
    configDir,
    env: {
      APPBUILDER_URL: url,
      APPBUILDER_CLIENT_ID: apiClient.apiKey,
      APPBUILDER_CLIENT_SECRET: apiClient.secret,
      XDG_CONFIG_HOME: configDir,
    },
    async stop() {
      server.kill('SIGTERM');
      await exited;
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Signs up an end user of a served version: its token and record. */
export async function signup(apiUrl: string, name: string): Promise<{ token: string; user: { id: string } }> {
  const response = await fetch(`${apiUrl}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, email: `${name.toLowerCase()}@example.test`, password: 'correct horse battery' }),
  });
  if (response.status !== 201) throw new Error(`signup answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { token: string; user: { id: string } };
}
