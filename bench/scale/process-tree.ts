/**
 * Issue 28's footprint, measured as a user meets it: `npm start` (the real command, npm itself
 * included) on a data directory and port of its own, and the memory of its whole process tree
 * from /proc (Linux). Used by test/platform/footprint.test.ts.
 *
 * - RSS (VmRSS) summed over the tree is what the targets name. It counts a page every process
 *   maps once per process: npm and the service both map the node binary.
 * - PSS (smaps_rollup) splits such pages between the processes that share them; printed beside it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { freePort } from '../../test/support/ports.ts';

export interface TreeProcess {
  pid: number;
  command: string;
  rssKb: number;
  /** null where smaps_rollup cannot be read. */
  pssKb: number | null;
}

export interface TreeMemory {
  processes: TreeProcess[];
  rssMb: number;
  pssMb: number | null;
}

/** The parent of every process now, from /proc/<pid>/stat (its comm may hold spaces and parentheses). */
function parents(): Map<number, number> {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parentOf.set(Number(name), Number(fields[1]));
    } catch {
      // gone meanwhile
    }
  }
  return parentOf;
}

/** `root` and all its descendants, root first. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, parent] of parents()) children.set(parent, [...(children.get(parent) ?? []), pid]);
  const tree: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

function kbField(text: string, field: string): number | null {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return match ? Number(match[1]) : null;
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The RSS (and PSS) of `root`'s whole tree now; processes that exited meanwhile are left out. */
export function treeMemory(root: number): TreeMemory {
  const processes: TreeProcess[] = [];
  for (const pid of processTree(root)) {
    const status = readOrNull(`/proc/${pid}/status`);
    const rssKb = status === null ? null : kbField(status, 'VmRSS');
    if (rssKb === null) continue;
    const rollup = readOrNull(`/proc/${pid}/smaps_rollup`);
    const command = (readOrNull(`/proc/${pid}/cmdline`) ?? '').split('\0').filter(Boolean).join(' ');
    processes.push({ pid, command, rssKb, pssKb: rollup === null ? null : kbField(rollup, 'Pss') });
  }
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0) / 1024;
  const pss = processes.map((p) => p.pssKb);
  return { processes, rssMb: sum(processes.map((p) => p.rssKb)), pssMb: pss.every((kb) => kb !== null) ? sum(pss as number[]) : null };
}

export function describeTree(memory: TreeMemory): string {
  const lines = memory.processes.map((p) => `    ${String(p.pid).padStart(7)} ${(p.rssKb / 1024).toFixed(1).padStart(7)} MB RSS  ${p.pssKb === null ? '' : `${(p.pssKb / 1024).toFixed(1).padStart(7)} MB PSS  `}${p.command.slice(0, 90)}`);
  return [`  tree: ${memory.rssMb.toFixed(1)} MB RSS${memory.pssMb === null ? '' : `, ${memory.pssMb.toFixed(1)} MB PSS`}`, ...lines].join('\n');
}

export interface NpmStart {
  /** npm's process: the root of the tree. */
  child: ChildProcess;
  url: string;
  output(): string;
  /** SIGTERM to the whole group (as Ctrl-C would), SIGKILL after 20 s; resolves when npm has exited. */
  stop(): Promise<void>;
}

/**
 * `npm start` in `cwd` (npm as the caller runs it: npm_execpath under `npm test`, else `npm` on
 * the PATH), in a process group of its own, and ready (/readyz answers 200) within `timeoutMs`.
 */
export async function npmStart(cwd: string, env: Record<string, string | undefined>, timeoutMs = 180_000): Promise<NpmStart> {
  const port = await freePort();
  const npm = process.env.npm_execpath;
  const [command, args] = npm && /npm-cli\.js$/.test(npm) ? [process.execPath, [npm, 'start']] : ['npm', ['start']];
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit');
  exited.catch(() => {});
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const signal = (name: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, name);
      } catch {
        // the group is gone
      }
    };
    signal('SIGTERM');
    const timer = setTimeout(() => signal('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`npm start exited (${child.exitCode ?? child.signalCode}):\n${output}`);
    if (await fetch(`${url}/readyz`).then((reply) => reply.status === 200, () => false)) return { child, url, output: () => output, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`npm start was not ready within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
