/**
 * Documents are read in a sandbox: a small pool of worker threads, started on first use, each
 * building one specification at a time (extractors, merge, validation) with a V8 heap limit
 * (`resourceLimits`) and a clock. A step that runs past APPBUILDER_EXTRACT_TIMEOUT, or a heap
 * that would grow past APPBUILDER_EXTRACT_MEMORY_MB, ends the worker (`terminate` stops even a
 * synchronous parse) and fails the build with a message naming the document and the limit; the
 * next build gets a fresh worker. Nothing a document holds runs on the thread that answers HTTP.
 *
 * Worker threads rather than a child process: a thread starts in tens of milliseconds and shares
 * the process's loaded code and configuration, the attachments' bytes move to it without a copy
 * (transferred ArrayBuffers, where a child would serialise up to 25 MiB each through a pipe), and
 * Node bounds its heap itself. What a thread does not bound is memory outside the V8 heap
 * (ArrayBuffers); the per-document caps of limits.ts keep that small.
 */
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { BuildAttachment, BuildOptions, BuildStage, BuiltSpecification } from './build.ts';
import { ExtractionError } from './extractors/types.ts';
import type { FromWorker, ToWorker } from './sandbox-messages.ts';

export interface SandboxSettings {
  /** Each document's reading, and the build from the drafts, must end within this, ms (APPBUILDER_EXTRACT_TIMEOUT, default 30,000). */
  timeoutMs: number;
  /** The V8 heap (old generation) of a worker, MB (APPBUILDER_EXTRACT_MEMORY_MB, default 512). */
  memoryMb: number;
  /** Workers at most (APPBUILDER_EXTRACT_WORKERS; default 1, 2 with three cores or more: one core stays with HTTP). */
  workers: number;
}

function positive(value: string | undefined, fallback: number): number {
  const parsed = Number(value ?? '');
  return value && Number.isSafeInteger(parsed) && parsed > 0 ? parsed : fallback;
}

export function loadSandboxSettings(env: NodeJS.ProcessEnv): SandboxSettings {
  return {
    timeoutMs: positive(env.APPBUILDER_EXTRACT_TIMEOUT, 30_000),
    memoryMb: positive(env.APPBUILDER_EXTRACT_MEMORY_MB, 512),
    workers: Math.min(8, positive(env.APPBUILDER_EXTRACT_WORKERS, Math.min(2, Math.max(1, availableParallelism() - 1)))),
  };
}

/** The young generation and the stack of a worker, MB (fixed: no document needs more). */
const YOUNG_GENERATION_MB = 32;
const STACK_MB = 4;
/** A worker with nothing to do ends after this, ms: its heap (and the SQL parser's WASM memory) go with it. */
const IDLE_MS = 30_000;
/** Loading a worker's modules may take this long, ms (tsx compiles the sources on a cold start). */
const START_MS = 60_000;

/** The worker's file and the flags to run it with: compiled JavaScript under dist/, the TypeScript sources through tsx otherwise. */
function workerEntry(): { url: URL; execArgv: string[] } {
  if (import.meta.url.endsWith('.ts')) {
    // A worker thread does not inherit the TypeScript loader its parent was started with.
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    return { url: new URL('./sandbox-worker.ts', import.meta.url), execArgv: ['--import', tsx] };
  }
  return { url: new URL('./sandbox-worker.js', import.meta.url), execArgv: [] };
}

function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`;
}

function doing(stage: BuildStage): string {
  return stage ? `Reading ${stage.attachment.name} (${stage.attachment.kind})` : 'Building the specification from the documents read';
}

interface Task {
  name: string;
  attachments: BuildAttachment[];
  options?: BuildOptions;
  resolve: (built: BuiltSpecification) => void;
  reject: (error: Error) => void;
}

/** One worker thread and the build it is running. */
class SandboxWorker {
  readonly worker: Worker;
  state: 'starting' | 'idle' | 'busy' | 'gone' = 'starting';
  private task: Task | null = null;
  private step = 'Starting the document reader';
  private timer: NodeJS.Timeout;

  constructor(
    private readonly settings: SandboxSettings,
    /** Told when the worker is idle, or gone (with the reason when it never started). */
    private readonly onFree: (worker: SandboxWorker, startFailure?: string) => void,
  ) {
    const entry = workerEntry();
    this.worker = new Worker(entry.url, {
      execArgv: entry.execArgv,
      resourceLimits: { maxOldGenerationSizeMb: settings.memoryMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB, stackSizeMb: STACK_MB },
    });
    // Only a worker at work holds the process open (a CLI command that built a specification exits).
    this.worker.unref();
    this.timer = setTimeout(() => this.stop(`${this.step} took longer than ${duration(START_MS)}: it was stopped.`), START_MS);
    this.worker.on('message', (message: FromWorker) => this.receive(message));
    this.worker.on('error', (error: Error & { code?: string }) => {
      const message =
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `${this.step} needed more memory than the limit of ${this.settings.memoryMb} MB (APPBUILDER_EXTRACT_MEMORY_MB): it was stopped.`
          : `${this.step} failed: ${error.message}`;
      this.stop(message);
    });
    this.worker.on('exit', (code) => this.stop(`${this.step} ended the document reader (exit code ${code}).`));
  }

  run(task: Task): void {
    this.state = 'busy';
    this.task = task;
    this.worker.ref();
    this.arm(doing(task.attachments[0] ? { attachment: task.attachments[0] } : null));
    // A copy of each attachment's bytes, moved to the worker: the caller's Buffer may share its memory with others.
    const attachments = task.attachments.map((a) => ({ id: a.id, name: a.name, kind: a.kind, bytes: new Uint8Array(a.bytes).buffer }));
    const message: ToWorker = { name: task.name, attachments, ...(task.options ? { options: task.options } : {}) };
    this.worker.postMessage(message, attachments.map((a) => a.bytes));
  }

  /** Starts the clock of a step (each document, then the build): it must end within the time limit. */
  private arm(step: string): void {
    this.step = step;
    clearTimeout(this.timer);
    this.timer = setTimeout(
      () => this.stop(`${step} took longer than the limit of ${duration(this.settings.timeoutMs)} (APPBUILDER_EXTRACT_TIMEOUT): it was stopped.`),
      this.settings.timeoutMs,
    );
  }

  private receive(message: FromWorker): void {
    if (this.state === 'gone') return;
    if (message.type === 'ready') {
      clearTimeout(this.timer);
      this.free();
    } else if (message.type === 'stage') {
      this.arm(doing(message.stage));
    } else {
      const task = this.task;
      this.task = null;
      clearTimeout(this.timer);
      if (message.type === 'built') task?.resolve(message.built);
      else task?.reject(message.extraction ? new ExtractionError(message.message) : new Error(message.message));
      this.free();
    }
  }

  private free(): void {
    this.state = 'idle';
    this.step = 'Waiting';
    this.worker.unref();
    this.timer = setTimeout(() => this.stop(''), IDLE_MS).unref();
    this.onFree(this);
  }

  /** Ends the worker at once (the service stops): a build it was running fails. */
  async end(): Promise<void> {
    this.stop('The service stopped while the document was being read.');
    await this.worker.terminate();
  }

  /** Ends the worker; a build it was running fails with `reason`. */
  stop(reason: string): void {
    if (this.state === 'gone') return;
    const wasStarting = this.state === 'starting';
    this.state = 'gone';
    clearTimeout(this.timer);
    void this.worker.terminate();
    const task = this.task;
    this.task = null;
    if (task) task.reject(new ExtractionError(reason));
    this.onFree(this, wasStarting ? reason : undefined);
  }
}

/** The pool: builds wait for a free worker; at most `settings.workers` run at once. */
export class ExtractionSandbox {
  private readonly workers = new Set<SandboxWorker>();
  private readonly waiting: Task[] = [];
  private closed = false;

  constructor(readonly settings: SandboxSettings) {}

  /** Builds the specification in a worker; rejects with an `ExtractionError` naming the document and the limit when one is passed. */
  build(name: string, attachments: BuildAttachment[], options?: BuildOptions): Promise<BuiltSpecification> {
    if (this.closed) return Promise.reject(new Error('The service is stopping: no document is read any more.'));
    return new Promise((resolve, reject) => {
      this.waiting.push({ name, attachments, ...(options ? { options } : {}), resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      const idle = [...this.workers].find((w) => w.state === 'idle');
      if (idle) {
        idle.run(this.waiting.shift()!);
        continue;
      }
      const starting = [...this.workers].filter((w) => w.state === 'starting').length;
      if (starting >= this.waiting.length || this.workers.size >= this.settings.workers) return;
      this.workers.add(new SandboxWorker(this.settings, (worker, startFailure) => this.freed(worker, startFailure)));
    }
  }

  private freed(worker: SandboxWorker, startFailure?: string): void {
    if (worker.state === 'gone') this.workers.delete(worker);
    // A worker that cannot start fails the build that waited longest, not every later one in a loop.
    if (startFailure !== undefined) this.waiting.shift()?.reject(new Error(startFailure));
    if (!this.closed) this.dispatch();
  }

  /** Ends every worker; builds still waiting fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.waiting.splice(0)) task.reject(new Error('The service is stopping: no document is read any more.'));
    const workers = [...this.workers];
    this.workers.clear();
    await Promise.all(workers.map((w) => w.end()));
  }
}
