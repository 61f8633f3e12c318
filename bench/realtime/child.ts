// A bench helper process spoken to in lines: spawned with tsx, lines written to its stdin, its
// stdout read line by line (stderr passes through); and the percentile of a list of figures.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export class ChildLines {
  private readonly child: ChildProcess;
  private readonly lines: AsyncIterator<string>;

  constructor(script: URL) {
    this.child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(script)], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.lines = createInterface({ input: this.child.stdout! })[Symbol.asyncIterator]();
  }

  /** Writes one line; `last` closes stdin after it. */
  send(line: string, last = false): void {
    this.child.stdin!.write(`${line}\n`);
    if (last) this.child.stdin!.end();
  }

  /** The next line it prints; throws when it exits first. */
  async next(): Promise<string> {
    const { value, done } = await this.lines.next();
    if (done) throw new Error(`${this.child.spawnfile} exited (${this.child.exitCode}) before answering`);
    return value;
  }

  async exited(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) await once(this.child, 'exit');
  }
}

/** The p-th percentile (nearest rank) of `values`; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
