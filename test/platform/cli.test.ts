import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'appbuilder.js');
const dataDir = mkdtempSync(join(tmpdir(), 'appbuilder-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function run(args: string[], env: Record<string, string> = {}): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  let output = '';
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, APPBUILDER_DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitFor(predicate: () => boolean, timeoutMs: number): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the appbuilder command', () => {
  it('serves on the embedded store, keeps a second process out, and stops cleanly on SIGTERM', async () => {
    const server = run(['serve', '--port', '0', '--host', '127.0.0.1'], {
      APPBUILDER_BOOTSTRAP_CLIENT_ID: 'ak_cli',
      APPBUILDER_BOOTSTRAP_CLIENT_SECRET: 'sk_cli_secret',
    });
    await waitFor(() => /listening on (http:\/\/\S+)\/v1/.test(server.output()), 60_000);
    const base = /listening on (http:\/\/\S+)\/v1/.exec(server.output())![1];
    expect(server.output()).toContain(`embedded PGlite at ${dataDir}`);
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
    const token = await fetch(`${base}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: 'ak_cli', client_secret: 'sk_cli_secret' }),
    });
    expect(token.status).toBe(200);
    expect(existsSync(join(dataDir, 'appbuilder.lock'))).toBe(true);

    const second = run(['serve', '--port', '0']);
    expect(await second.exited).not.toBe(0);
    expect(second.output()).toContain(`The data directory ${dataDir} is in use`);

    // init cannot share the embedded store with the running service: it says what to do instead.
    const init = run(['init', '--name', 'Too Early']);
    expect(await init.exited).toBe(1);
    expect(init.output()).toContain(`the embedded store ${dataDir} is in use by a running service (process ${server.child.pid})`);
    expect(init.output()).toContain('stop the service, run `appbuilder init` again');
    expect(init.output()).toContain('POST /v1/customers');
    // ...and the advice works: the administrator creates the customer through the running service.
    const { access_token } = (await token.json()) as { access_token: string };
    const customer = await fetch(`${base}/v1/customers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}`, 'x-svc-api-client': 'ak_cli' },
      body: JSON.stringify({ name: 'Too Early' }),
    });
    expect(customer.status).toBe(201);
    expect(await customer.json()).toMatchObject({ name: 'Too Early', apiClient: { apiKey: expect.any(String), secret: expect.any(String) } });

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(existsSync(join(dataDir, 'appbuilder.lock'))).toBe(false);
  });

  it('init creates a customer and prints its credentials once', async () => {
    const init = run(['init', '--name', 'Cli Co']);
    expect(await init.exited).toBe(0);
    expect(init.output()).toMatch(/Customer Cli Co \([0-9a-f-]{36}\)/);
    expect(init.output()).toMatch(/API key: ak_\S+/);
    expect(init.output()).toMatch(/Secret: +sk_\S+/);
  });
});
