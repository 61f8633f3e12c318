import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/ports.ts';

// The README's five minutes, run as written: its ```sh blocks, in order, in one bash, in a "fresh
// clone" (a directory whose bin, src, examples, test, node_modules and package.json point at this
// checkout): a real SQL dump → specification → application with its data → an end user. Then the
// service is stopped and its first block run again on the now non-empty store, as README says it
// behaves: the bootstrap variables name the existing client, logged so, and the login works.
const REPO = join(import.meta.dirname, '..', '..');
const SECTION = '## Five minutes: from a document to an app with end users';

function tutorialBlocks(readme: string): string[] {
  const start = readme.indexOf(SECTION);
  if (start < 0) throw new Error(`the README has no section "${SECTION}"`);
  const end = readme.indexOf('\n## ', start + SECTION.length);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

const root = mkdtempSync(join(tmpdir(), 'appbuilder-readme-'));
let group: number | undefined;
afterAll(() => {
  // The tutorial leaves the service running in the background (its own process group).
  if (group) {
    try {
      process.kill(-group, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  rmSync(root, { recursive: true, force: true });
});

async function runBash(script: string, cwd: string, env: Record<string, string | undefined>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const bash = spawn('bash', ['-c', script], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  group = bash.pid;
  let stdout = '';
  let stderr = '';
  bash.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  bash.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => bash.on('exit', (exit) => resolve(exit)));
  return { code, stdout, stderr };
}

/** Stops the background service the blocks started (the group of the last bash) and waits for its port to close. */
async function stopService(port: string): Promise<void> {
  if (group) process.kill(-group, 'SIGTERM');
  group = undefined;
  for (let i = 0; i < 120; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/readyz`);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error('the service did not stop');
}

describe('the README five minutes', () => {
  it('runs as written: a SQL dump becomes a served app with its data, an end user signs up and owns an invoice; a second start on the same store logs in', async () => {
    const blocks = tutorialBlocks(readFileSync(join(REPO, 'README.md'), 'utf8'));
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    const clone = join(root, 'clone');
    mkdirSync(clone);
    for (const entry of ['bin', 'src', 'examples', 'test', 'node_modules', 'package.json', 'tsconfig.json']) symlinkSync(join(REPO, entry), join(clone, entry));

    const port = String(await freePort());
    const env: Record<string, string | undefined> = {
      ...process.env,
      PORT: port,
      APPBUILDER_DATA_DIR: join(root, 'data'),
      XDG_CONFIG_HOME: join(root, 'config'),
      DATABASE_URL: '',
      LOG_LEVEL: 'warn',
    };
    for (const name of ['APPBUILDER_URL', 'APPBUILDER_CLIENT_ID', 'APPBUILDER_CLIENT_SECRET']) delete env[name];

    const { code, stdout, stderr } = await runBash(['set -euo pipefail', ...blocks].join('\n'), clone, env);
    const logOf = () => (existsSync(join(clone, 'service.log')) ? readFileSync(join(clone, 'service.log'), 'utf8') : '');
    expect({ code, stderr, log: code === 0 ? '' : logOf() }).toEqual({ code: 0, stderr: '', log: '' });

    expect(stdout).toMatch(/models: 10/);
    expect(stdout).toMatch(/API: +http:\/\/\S+\/api\/v\S+/);
    const lines = stdout.split('\n');
    // Ann's invoice, created then listed: hers alone, with the total she sent
    const created = JSON.parse(lines.find((line) => line.startsWith('{"id"'))!) as { total: number; customer: { email: string } };
    expect(created).toMatchObject({ total: 1.98, customer: { email: 'ann@example.com' } });
    const pages = lines.filter((line) => line.startsWith('{"items"')).map((line) => JSON.parse(line) as { items: Array<Record<string, unknown>>; total: number });
    expect(pages[0]).toMatchObject({ total: 1, items: [{ total: 1.98 }] });
    // the catalogue, imported from the dump, read anonymously: Chinook has 3,503 tracks
    expect(pages[1]!.total).toBe(3503);
    expect(pages[1]!.items[0]).toHaveProperty('name');
    expect(statSync(join(root, 'config', 'appbuilder', 'credentials.json')).mode & 0o777).toBe(0o600);

    // A second start on the non-empty store, the first block as written: the client exists, the log says so, login works.
    await stopService(port);
    const again = await runBash(['set -euo pipefail', blocks[0]!, './bin/appbuilder.js status Chinook'].join('\n'), clone, { ...env, LOG_LEVEL: 'info' });
    expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 0, stderr: '' });
    expect(again.stdout).toMatch(/Logged in to http:\/\/localhost:\d+ as ak_tutorial/);
    expect(again.stdout).toMatch(/Chinook \([0-9a-f-]{36}\) v\S+, served/);
    expect(logOf()).toContain('already holds the API client ak_tutorial');
  }, 900_000);
});
