// The two servers of `npm run bench:runtime`, each in a process of its own started the same way:
// `node` with `npm start`'s flags and environment (package.json), no TypeScript loader. The service
// is `bin/appbuilder.js serve` running the compiled build in dist/ (built first when missing or
// older than src/); the baseline is baseline-server.ts, which Node runs by stripping its types.
// BENCH_CPU_PROF=<dir> starts the service with --cpu-prof, its profile written there on exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { buildDist, distIsCurrent } from '../../src/cli/build.ts';
import { BOOTSTRAP, GENEROUS_APP_LIMITS } from '../../test/support/platform.ts';
import { freePort } from '../../test/support/ports.ts';
import type { BaselineSettings } from './baseline-server.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/appbuilder.js', import.meta.url));
const BASELINE = fileURLToPath(new URL('./baseline-server.ts', import.meta.url));

/** `npm start`'s node flags and allocator settings (package.json), for both processes. */
const NODE_FLAGS = ['--v8-pool-size=1', '--max-semi-space-size=2', '--heap-growing-percent=35'];
const START_ENV = { MALLOC_ARENA_MAX: '1', MALLOC_TRIM_THRESHOLD_: '131072' };

export interface ServerProcess {
  url: string;
  pid: number;
  output(): string;
  /** SIGTERM, then waits for the exit (SIGKILL after 20 s). */
  stop(): Promise<void>;
}

async function start(args: string[], env: Record<string, string>, ready: (output: string) => Promise<string | null>): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, [...NODE_FLAGS, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...START_ENV, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit');
  exited.catch(() => {});
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited (${child.exitCode}):\n${output}`);
    const url = await ready(output);
    if (url) return { url, pid: child.pid!, output: () => output, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${args.join(' ')} not ready within 120 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** `appbuilder serve` (the compiled build) over `databaseUrl`, rate limits out of the way of the load. */
export async function startServiceProcess(databaseUrl: string): Promise<ServerProcess> {
  if (!distIsCurrent()) {
    console.log('dist/ is missing or older than src/: building it (npm run build:dist)');
    buildDist();
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  return start([...profile, BIN, 'serve', '--port', String(port), '--host', '127.0.0.1'], {
    ...GENEROUS_APP_LIMITS,
    APPBUILDER_APP_RATE_LIMIT: '100000000',
    APPBUILDER_TOKEN_RATE_LIMIT: '100000',
    DATABASE_URL: databaseUrl,
    APPBUILDER_BOOTSTRAP_CLIENT_ID: BOOTSTRAP.id,
    APPBUILDER_BOOTSTRAP_CLIENT_SECRET: BOOTSTRAP.secret,
  }, async () => ((await fetch(`${url}/readyz`).then((reply) => reply.status === 200, () => false)) ? url : null));
}

/** The baseline (baseline-server.ts) over `databaseUrl`. */
export async function startBaselineProcess(databaseUrl: string, settings: BaselineSettings): Promise<ServerProcess> {
  return start([BASELINE], { DATABASE_URL: databaseUrl, BASELINE_SETTINGS: JSON.stringify(settings) }, async (output) => /baseline listening (\S+)/.exec(output)?.[1] ?? null);
}
