#!/usr/bin/env node
// The appbuilder command (and `npm start`, which runs `appbuilder serve`). It runs the compiled
// CLI in dist/ (`npm run build`, which npm install and npm ci run through `prepare`): plain
// JavaScript, no TypeScript loader. Only when no such build is there, or a file under src/ is
// newer than the build (a checkout being edited), it runs the sources through tsx instead, so an
// older build never runs in place of the sources.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** When the build in dist/ started (src/cli/build.ts writes it last), or NaN without one. */
function builtAt() {
  try {
    return Number(readFileSync(join(root, 'dist', '.build-stamp'), 'utf8'));
  } catch {
    return NaN;
  }
}

/** Whether `dir` or anything under it was changed at or after `time` (ms). */
function changedSince(dir, time) {
  if (statSync(dir).mtimeMs >= time) return true;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() ? changedSince(path, time) : statSync(path).mtimeMs >= time) return true;
  }
  return false;
}

/** Whether dist/ holds a build no source is newer than (a file vanishing meanwhile: not sure, so no). */
function distIsCurrent() {
  const built = builtAt();
  try {
    return Number.isFinite(built) && !changedSince(join(root, 'src'), built);
  } catch {
    return false;
  }
}

if (distIsCurrent()) {
  await import('../dist/cli/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
