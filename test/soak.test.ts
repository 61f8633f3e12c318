// The soak in CI (issue 22): `npm run soak -- --seconds 30` as a child process against the
// service on PostgreSQL, with a line every 10 s and a publish every 10 s. It must print its
// interval lines, serve every kind of request, and answer no 5xx other than a deliberate 503.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { postgresAvailable } from './support/databases.ts';

const hasPostgres = await postgresAvailable();
if (!hasPostgres) console.warn('[tests] soak: PostgreSQL does not answer; skipped.');

const MAIN = fileURLToPath(new URL('../bench/soak/main.ts', import.meta.url));

describe.skipIf(!hasPostgres)('the soak (30 s, PostgreSQL)', () => {
  it('prints a line per interval and answers no 5xx other than 503', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--seconds', '30', '--interval', '10', '--publish-every', '10'], {
      env: { ...process.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    console.log(output);
    const lines = output.split('\n').filter((line) => /^interval \(10 s\) \d+: /.test(line));
    expect(lines.length).toBe(3);
    for (const line of lines) {
      expect(line).toMatch(/: \d+ requests, p50 [\d.]+ ms, p99 [\d.]+ ms, errors .+, RSS \d+ MB \(heap \d+ MB\), pool \d+ in use at most \/ \d+ open, \d+ publish\(es\)$/);
      expect(Number(/: (\d+) requests/.exec(line)![1])).toBeGreaterThan(0);
      const errors = /errors (.+), RSS/.exec(line)![1];
      expect(errors).not.toMatch(/\b5(?!03)\d\d\b/);
    }
    // A publish went through in the run (every 10 s).
    expect(lines.some((line) => !line.endsWith(' 0 publish(es)'))).toBe(true);
    expect(output).toContain('0 × 5xx other than 503');
    expect(code).toBe(0);
  }, 180_000);
});
