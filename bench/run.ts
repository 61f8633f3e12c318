// `npm run bench`: every benchmark, one after the other: each `bench:*` script of package.json
// (bench:read, bench:runtime, …), with the same environment. Stops at the first that fails.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { scripts } = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { scripts: Record<string, string> };
const benches = Object.keys(scripts).filter((name) => name.startsWith('bench:'));
for (const name of benches) {
  console.log(`\n== npm run ${name}`);
  const result = spawnSync('npm', ['run', '--silent', name], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
