/**
 * Real `appbuilder serve --role …` processes for the multi-process tests: spawned with `node`
 * on the CLI entry, each over the same PostgreSQL database, and stopped (or killed) by the test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { BOOTSTRAP, GENEROUS_APP_LIMITS } from '../support/platform.ts';
import { freePort } from '../support/ports.ts';

const BIN = fileURLToPath(new URL('../../bin/appbuilder.js', import.meta.url));

export type ServeRole = 'all' | 'api' | 'runtime' | 'worker';

export interface ServeProcess {
  role: ServeRole;
  child: ChildProcess;
  /** `http://127.0.0.1:<port>` (a worker opens no port). */
  url: string;
  output(): string;
  /** SIGTERM, then waits for the exit; its exit code. */
  stop(): Promise<number | null>;
}

/** Starts `appbuilder serve --role <role>` over `databaseUrl` and waits until it is ready. */
export async function startServe(role: ServeRole, databaseUrl: string, env: Record<string, string> = {}): Promise<ServeProcess> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, [BIN, 'serve', '--role', role, '--port', String(port), '--host', '127.0.0.1'], {
    env: {
      ...process.env,
      ...GENEROUS_APP_LIMITS,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      APPBUILDER_BOOTSTRAP_CLIENT_ID: BOOTSTRAP.id,
      APPBUILDER_BOOTSTRAP_CLIENT_SECRET: BOOTSTRAP.secret,
      APPBUILDER_TOKEN_RATE_LIMIT: '1000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // Settles when the process has exited and its output has been read to the end.
  const closed = once(child, 'close');
  closed.catch(() => {});
  const url = `http://127.0.0.1:${port}`;
  const started: ServeProcess = {
    role,
    child,
    url,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      return code;
    },
  };
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) {
      await closed;
      throw new Error(`serve --role ${role} exited (${child.exitCode}): ${output}`);
    }
    const ready =
      role === 'worker'
        ? output.includes('appbuilder worker taking jobs')
        : await fetch(`${url}/readyz`).then((reply) => reply.status === 200, () => false);
    if (ready) return started;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`serve --role ${role} not ready after 90 s: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
