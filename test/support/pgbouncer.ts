// A PgBouncer process of a test's own (Debian's `pgbouncer`; CI installs it): its configuration
// in a temporary directory, `pool_mode = transaction`, trusting the local PostgreSQL's users,
// every database forwarded to 127.0.0.1:5432. Null, with the reason, when it is not installed.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { freePort } from './ports.ts';

const BINARIES = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer', '/usr/local/bin/pgbouncer'];

export interface PgBouncer {
  port: number;
  /** `databaseUrl` (a direct one) through this PgBouncer. */
  through(databaseUrl: string): string;
  stop(): Promise<void>;
}

/** The uid and gid of `postgres`, which PgBouncer runs as when the tests run as root (it refuses root). */
function postgresUser(): { uid: number; gid: number } | null {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) return null;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

export async function startPgBouncer(mode: 'transaction' | 'session' = 'transaction'): Promise<PgBouncer | { skipped: string }> {
  const binary = BINARIES.find((path) => existsSync(path));
  if (!binary) return { skipped: 'pgbouncer is not installed (apt-get install pgbouncer; CI has it)' };
  const asRoot = userInfo().uid === 0;
  const owner = asRoot ? postgresUser() : null;
  if (asRoot && !owner) return { skipped: 'running as root without a postgres user for pgbouncer to run as' };
  const dir = mkdtempSync(join(tmpdir(), 'appbuilder-pgbouncer-'));
  const port = await freePort();
  writeFileSync(join(dir, 'userlist.txt'), '"postgres" ""\n');
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      '* = host=127.0.0.1 port=5432',
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      `pool_mode = ${mode}`,
      'max_client_conn = 2000',
      'default_pool_size = 20',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  if (owner) {
    chmodSync(dir, 0o755);
    for (const file of ['', 'userlist.txt', 'pgbouncer.ini']) chownSync(join(dir, file), owner.uid, owner.gid);
  }
  let output = '';
  const child: ChildProcess = spawn(binary, [...(asRoot ? ['-u', 'postgres'] : []), join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit');
  exited.catch(() => {});
  const deadline = Date.now() + 10_000;
  while (!(await answers(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`pgbouncer did not start: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    port,
    through: (databaseUrl) => {
      const url = new URL(databaseUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
