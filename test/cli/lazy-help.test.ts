/**
 * `appbuilder --help` loads no server: main.ts imports each command's module when the command
 * runs. The real binary runs under a module hook (node --import) that writes down every module
 * it loads and makes `fastify` unloadable. `--help` (and a command's own `--help`) must work and
 * load nothing of the server; a command that does need the server (`init`) shows that the hook
 * bites: it fails on the blocked import and its list names the platform.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from './support.ts';

const dir = mkdtempSync(join(tmpdir(), 'appbuilder-lazy-help-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOOKS = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  if (specifier === 'fastify') throw new Error('blocked by the test: fastify may not load here');
  const resolved = await next(specifier, context);
  appendFileSync(process.env.LOAD_LOG, resolved.url + '\\n');
  return resolved;
}
`;
writeFileSync(join(dir, 'hooks.mjs'), HOOKS);
writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  loaded: string[];
}

let runs = 0;
function run(args: string[]): Promise<Run> {
  const log = join(dir, `loaded-${++runs}.txt`);
  writeFileSync(log, '');
  const child = spawn(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, BIN, ...args], {
    env: { ...process.env, LOAD_LOG: log, APPBUILDER_DATA_DIR: join(dir, `data-${runs}`), APPBUILDER_URL: 'http://127.0.0.1:9' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr, loaded: readFileSync(log, 'utf8').split('\n').filter(Boolean) })),
  );
}

/** A module of ours, from the sources (tsx) or the build in dist/ (what the binary runs when it is current). */
const ours = (path: string) => {
  const literal = (text: string) => text.replace(/\./g, '\\.');
  return new RegExp(`/(src/${literal(path.replace(/\.js$/, '.ts'))}|dist/${literal(path)})$`);
};

/** Modules of the server side: none of them may load for help. */
const SERVER = [/\/node_modules\/fastify\//, ours('platform.js'), /\/(src|dist)\/api\//, /\/(src|dist)\/storage\//, /\/node_modules\/@electric-sql\//, /\/node_modules\/kysely\//, /\/node_modules\/pg-boss\//];
const serverModules = (loaded: string[]) => loaded.filter((url) => SERVER.some((pattern) => pattern.test(url)));

describe('appbuilder --help loads no server module', () => {
  it('prints every command with fastify unloadable, and loads nothing of the server', async () => {
    const help = await run(['--help']);
    expect(help.stderr).toBe('');
    expect(help.code).toBe(0);
    for (const command of ['serve', 'init', 'login', 'apply', 'publish', 'unpublish', 'status', 'bundle', 'runs', 'open']) expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    // The hook saw the modules that did load (so an empty list below means something).
    expect(help.loaded.some((url) => ours('cli/main.js').test(url))).toBe(true);
    expect(help.loaded.some((url) => url.includes('/node_modules/commander/'))).toBe(true);
    expect(serverModules(help.loaded)).toEqual([]);
    expect(help.loaded.filter((url) => /\/(src|dist)\/cli\/(serve|init|apply|login|output)\.(ts|js)$/.test(url))).toEqual([]);
  }, 60_000);

  it("prints a command's own help the same way", async () => {
    const help = await run(['apply', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('-f, --file <file>');
    expect(serverModules(help.loaded)).toEqual([]);
  }, 60_000);

  it('blocks fastify for real: init, which needs the store and the platform, fails on it', async () => {
    const init = await run(['init', '--name', 'Blocked']);
    expect(init.code).not.toBe(0);
    expect(init.stderr).toContain('blocked by the test');
    expect(init.loaded.some((url) => ours('cli/init.js').test(url))).toBe(true);
    expect(serverModules(init.loaded).length).toBeGreaterThan(0);
  }, 60_000);
});
