import { execFile } from 'node:child_process';
import { existsSync, fsyncSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { PGlite, PGliteOptions } from '@electric-sql/pglite';

/**
 * PGlite sized for one service process (issue 28). Its WebAssembly heap only grows, so
 * what PostgreSQL allocates once stays resident for the life of the process:
 * - `shared_buffers` defaults to 128MB, all of it touched at start-up: 16MB here. The pages
 *   live in the data directory's files (or the in-memory file system) anyway, so a miss
 *   costs a file read, not a disk seek.
 * - `max_connections` sizes the lock and process tables; PGlite has one connection. The lock
 *   table holds max_locks_per_transaction × max_connections locks, and one deployment's
 *   transaction locks every table, index and sequence it touches: 64 × 10 made the publish of a
 *   1,000-model app fail with "out of shared memory" (bench:scale), so 1024 × 10 here (stock
 *   PostgreSQL's table is 64 × 100).
 * - `wal_buffers` defaults to 1/32 of shared_buffers; `maintenance_work_mem` (index builds
 *   during a deployment) from 64MB down, so one publish does not grow the heap for good.
 * Measured on a reopened data directory (2 cores): 283 MB RSS with PGlite's defaults,
 * 150 MB with these.
 */
export const PGLITE_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '16MB',
  wal_buffers: '1MB',
  max_connections: '10',
  max_locks_per_transaction: '1024',
  maintenance_work_mem: '16MB',
  temp_buffers: '2MB',
};

/**
 * Whether the embedded store syncs each commit to disk: on unless `APPBUILDER_EMBEDDED_FSYNC=off`
 * (tests and benches only: a power loss may then lose acknowledged writes or the cluster).
 */
export function embeddedFsync(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.APPBUILDER_EMBEDDED_FSYNC ?? 'on').trim().toLowerCase() !== 'off';
}

/**
 * The settings that make a commit durable. PGlite starts with `-F` (fsync off); its file system
 * ignores `fdatasync` (PostgreSQL's default WAL sync on Linux), so the WAL is synced with
 * `fsync`, which `syncNodeFiles` routes to the operating system.
 */
const DURABLE_SETTINGS: Readonly<Record<string, string>> = { fsync: 'on', wal_sync_method: 'fsync', synchronous_commit: 'on' };

/** The start parameters: PGlite's own (it replaces them when given any) plus the settings. */
export function pgliteStartParams(defaults: readonly string[], settings: Readonly<Record<string, string>> = PGLITE_SETTINGS, fsync = false): string[] {
  const start = fsync ? defaults.filter((param) => param !== '-F') : defaults;
  const all = fsync ? { ...settings, ...DURABLE_SETTINGS } : settings;
  return [...start, ...Object.entries(all).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
}

/** The options every instance opens with: int8 as a number (as on `pg`), and the settings. */
export function pgliteOptions(pglite: typeof PGlite, fsync = false): PGliteOptions {
  return { parsers: { 20: (value: string) => Number(value) }, startParams: pgliteStartParams(pglite.defaultStartParams, PGLITE_SETTINGS, fsync) };
}

let syncedFiles = 0;

/** How many times an embedded store synced a file to disk in this process (tests read it). */
export function embeddedSyncCount(): number {
  return syncedFiles;
}

interface NodeFsModule {
  NODEFS?: { stream_ops?: Record<string, unknown> };
}

/**
 * Emscripten's Node file system has no `fsync` of its own: PostgreSQL's syncs would return at
 * once with nothing on disk. This gives it one that syncs the open file descriptor, so a
 * commit acknowledged by the embedded store is on the disk.
 */
export function syncNodeFiles(pglite: PGlite): void {
  const streamOps = (pglite as unknown as { Module?: NodeFsModule }).Module?.NODEFS?.stream_ops;
  if (!streamOps) throw new Error('The embedded store exposes no file system to sync; set APPBUILDER_EMBEDDED_FSYNC=off to run without durability');
  streamOps.fsync = (stream: { nfd?: number }) => {
    if (typeof stream.nfd === 'number') fsyncSync(stream.nfd);
    syncedFiles++;
    return 0;
  };
}

/**
 * Creates a new data directory in a short-lived child process. Initialising one (initdb,
 * then the bootstrap) takes ~600 MB, and a WebAssembly heap never gives memory back, so
 * in-process the service would keep ~350 MB it no longer needs; the child's memory goes
 * when it exits and the service opens the directory as it would reopen it. A directory
 * that already holds a cluster (PG_VERSION) is left alone.
 */
export async function initialiseDataDir(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  // CommonJS: the package's `require` build, found from here as the service finds it (the child's
  // working directory may be anywhere, and import.meta.resolve is not there under every loader).
  const script = `
    const { PGlite } = require(process.env.PGLITE_MODULE);
    (async () => {
      const extra = JSON.parse(process.env.PGLITE_START_PARAMS);
      const pglite = new PGlite(process.env.PGLITE_DATA_DIR, { startParams: [...PGlite.defaultStartParams, ...extra] });
      await pglite.waitReady;
      await pglite.close();
    })().catch((error) => { console.error(error); process.exit(1); });`;
  try {
    await promisify(execFile)(process.execPath, ['-e', script], {
      env: {
        ...process.env,
        PGLITE_MODULE: createRequire(import.meta.url).resolve('@electric-sql/pglite'),
        PGLITE_DATA_DIR: dataDir,
        PGLITE_START_PARAMS: JSON.stringify(pgliteStartParams([])),
        // The child is plain JavaScript: none of the parent's loaders or inspector.
        NODE_OPTIONS: '',
      },
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const stderr = String((error as { stderr?: string }).stderr ?? '').trim();
    throw new Error(`Could not initialise the embedded store at ${dataDir}${stderr ? `: ${stderr}` : ` (${(error as Error).message})`}`);
  }
}
