// The first run (issue 23): `appbuilder serve` (what `npm start` runs) on an empty embedded store
// creates the platform administrator's API client, prints its key and secret once with a ready
// curl for a token, and keeps only the secret's hash. A second start prints no credentials.
import { afterAll, describe, expect, it } from 'vitest';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(import.meta.dirname, '..', '..');
const dataDir = mkdtempSync(join(tmpdir(), 'appbuilder-first-run-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/**
 * `tsx src/cli/main.ts serve` (what `npm start` runs from the sources; its compiled form is
 * test/platform/footprint.test.ts's) on a free port, without bootstrap client or DATABASE_URL.
 */
function serve(): ReturnType<typeof cli> {
  return cli(['serve']);
}

/** `tsx src/cli/main.ts …args` on the test's store. */
function cli(args: string[]): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  let output = '';
  const env: Record<string, string | undefined> = { ...process.env, APPBUILDER_DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1' };
  delete env.APPBUILDER_BOOTSTRAP_CLIENT_ID;
  delete env.APPBUILDER_BOOTSTRAP_CLIENT_SECRET;
  delete env.APPBUILDER_PUBLIC_URL;
  const child = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), ['src/cli/main.ts', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitFor(predicate: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  const start = Date.now();
  while (!predicate()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out; output so far:\n${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Every file under `dir`, for looking for bytes in the store. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('the first run on an empty embedded store', () => {
  it('prints the administrator credentials once with a curl that gets a token; the store keeps only the hash', async () => {
    const first = serve();
    try {
      await waitFor(() => /curl -s \S+\/oauth\/token/.test(first.output()), 120_000, first.output);
      const output = first.output();
      const base = /listening on (http:\/\/\S+)\/v1/.exec(output)![1];
      expect(output).toContain(`API docs: ${base}/v1/docs`);
      // the console is named, and the root leads there
      expect(output).toContain(`Console:  ${base}/console`);
      const root = await fetch(`${base}/`, { redirect: 'manual' });
      expect({ status: root.status, location: root.headers.get('location') }).toEqual({ status: 302, location: '/console' });
      const apiKey = /API key: (ak_\S+)/.exec(output)![1];
      const secret = /Secret: +(sk_\S+)/.exec(output)![1];
      expect(output).toContain('shown only now');

      // The printed command, run as printed, answers a token.
      const curl = /^ {2}(curl -s \S+\/oauth\/token .*)$/m.exec(output)![1];
      expect(curl).toContain(apiKey);
      expect(curl).toContain(secret);
      const { stdout } = await promisify(execFile)('sh', ['-c', curl]);
      const token = JSON.parse(stdout) as { access_token: string; token_type: string };
      expect(token.access_token.split('.')).toHaveLength(3);

      // It is a platform administrator: it may create customers.
      const customer = await fetch(`${base}/v1/customers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token.access_token}`, 'x-svc-api-client': apiKey },
        body: JSON.stringify({ name: 'Second customer' }),
      });
      expect(customer.status).toBe(201);

      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      // Only the hash is stored: the secret's bytes are nowhere in the data directory.
      const needle = Buffer.from(secret);
      expect(filesUnder(dataDir).filter((file) => readFileSync(file).includes(needle))).toEqual([]);
    } finally {
      first.child.kill('SIGKILL');
    }

    // The store is no longer empty: a second start creates and prints nothing.
    const second = serve();
    try {
      await waitFor(() => /OpenAPI: +\S+/.test(second.output()), 120_000, second.output);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(second.output()).not.toContain('API key:');
      expect(second.output()).not.toContain('First run');
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    } finally {
      second.child.kill('SIGKILL');
    }

    // `appbuilder init` still works on the stopped store: a further customer, not an administrator.
    const init = cli(['init', '--name', 'Later Co']);
    expect(await init.exited, init.output()).toBe(0);
    expect(init.output()).toMatch(/Customer Later Co \([0-9a-f-]{36}\)\n/);
    expect(init.output()).not.toContain('platform administrator');
  }, 300_000);
});
