/**
 * `npm run build`'s second step (the first writes the SDK's types, src/sdk/generate.ts): src
 * compiled to dist/ (tsconfig.build.json), so that `npm start` and `bin/appbuilder.js` run plain
 * JavaScript in one process with no TypeScript loader. npm install and npm ci run it through
 * `prepare`.
 *
 * - The files the server reads beside its modules (src/frontend/assets, src/console/assets:
 *   anything under src that is not TypeScript) are copied to the same place under dist/.
 * - dist/.build-stamp holds the time the build started: bin/appbuilder.js runs dist/ only when
 *   no file under src/ is newer, and the sources through tsx otherwise, so a checkout being
 *   edited never runs an older build (a file saved during the build counts as newer).
 * - The build goes to a directory of its own (dist/.next-<pid>) and replaces dist/ at the end: a
 *   process running from dist/ meanwhile never sees half a build, and the files of deleted
 *   sources go with the old one.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const STAMP = '.build-stamp';

const ROOT = join(import.meta.dirname, '..', '..');

export function buildDist(root: string = ROOT): void {
  const startedAt = Date.now();
  const dist = join(root, 'dist');
  // Built inside dist/ (ignored by git, eslint and tsc), then swapped in with two renames.
  const next = join(dist, `.next-${process.pid}`);
  const old = join(root, `dist.old-${process.pid}`);
  rmSync(next, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', next], { cwd: root, stdio: 'inherit' });
  cpSync(join(root, 'src'), next, {
    recursive: true,
    filter: (source) => statSync(source).isDirectory() || !source.endsWith('.ts'),
  });
  writeFileSync(join(next, STAMP), `${startedAt}\n`);
  renameSync(dist, old);
  try {
    renameSync(join(old, `.next-${process.pid}`), dist);
  } catch (error) {
    // Another build swapped its own in meanwhile: it stays.
    if (!existsSync(dist)) renameSync(old, dist);
    throw error;
  }
  rmSync(old, { recursive: true, force: true });
}

/** Whether `dir` or anything under it was changed at or after `time` (ms). */
function changedSince(dir: string, time: number): boolean {
  if (statSync(dir).mtimeMs >= time) return true;
  return readdirSync(dir, { withFileTypes: true }).some((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? changedSince(path, time) : statSync(path).mtimeMs >= time;
  });
}

/**
 * Whether dist/ holds a build no file under src/ is newer than: then bin/appbuilder.js (and so
 * `npm start`) runs it, else the sources through tsx. The same test as the one bin/appbuilder.js
 * makes before it loads anything (it cannot import this file: it is TypeScript).
 */
export function distIsCurrent(root: string = ROOT): boolean {
  let builtAt: number;
  try {
    builtAt = Number(readFileSync(join(root, 'dist', STAMP), 'utf8'));
  } catch {
    return false;
  }
  try {
    return Number.isFinite(builtAt) && !changedSince(join(root, 'src'), builtAt);
  } catch {
    return false;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const started = Date.now();
  buildDist();
  process.stdout.write(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
