import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/ports.ts';

// The README's tutorial, run as written: its ```sh blocks, in order, in one bash, in a "fresh clone"
// (a directory whose bin, src, examples, node_modules and package.json point at this checkout).
const REPO = join(import.meta.dirname, '..', '..');
const SECTION = '## Five minutes with the appbuilder command';

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

describe('the README tutorial', () => {
  it('runs as written: start, login, apply and publish the to-do example, an end user, to-dos, runs, the bundle', async () => {
    const blocks = tutorialBlocks(readFileSync(join(REPO, 'README.md'), 'utf8'));
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    const clone = join(root, 'clone');
    mkdirSync(clone);
    for (const entry of ['bin', 'src', 'examples', 'node_modules', 'package.json', 'tsconfig.json']) symlinkSync(join(REPO, entry), join(clone, entry));

    const env: Record<string, string | undefined> = {
      ...process.env,
      PORT: String(await freePort()),
      APPBUILDER_DATA_DIR: join(root, 'data'),
      XDG_CONFIG_HOME: join(root, 'config'),
      DATABASE_URL: '',
      LOG_LEVEL: 'warn',
    };
    for (const name of ['APPBUILDER_URL', 'APPBUILDER_CLIENT_ID', 'APPBUILDER_CLIENT_SECRET']) delete env[name];

    const script = ['set -euo pipefail', ...blocks].join('\n');
    const bash = spawn('bash', ['-c', script], { cwd: clone, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    group = bash.pid;
    let stdout = '';
    let stderr = '';
    bash.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    bash.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => bash.on('exit', (exit) => resolve(exit)));
    const log = existsSync(join(clone, 'service.log')) ? readFileSync(join(clone, 'service.log'), 'utf8') : '';
    expect({ code, stderr, log: code === 0 ? '' : log }).toEqual({ code: 0, stderr: '', log: '' });

    expect(stdout).toMatch(/Created todo \([0-9a-f-]{36}\) in project Tutorial: v\S+; models \+2, actions \+2, triggers \+2/);
    expect(stdout).toMatch(/API: +http:\/\/\S+\/api\/v\S+/);
    // The to-do created, then listed, belongs to Ann; the list holds her welcome to-do too.
    const list = JSON.parse(stdout.split('\n').find((line) => line.includes('"items"'))!) as { items: Array<{ title: string }>; total: number };
    expect(list.items.map((item) => item.title)).toContain('Try appbuilder');
    expect(stdout).toContain('urn:svc:action:welcome');
    expect(readFileSync(join(clone, 'todo-frontend.zip')).subarray(0, 2).toString()).toBe('PK');
    expect(statSync(join(root, 'config', 'appbuilder', 'credentials.json')).mode & 0o777).toBe(0o600);
  }, 900_000);
});
