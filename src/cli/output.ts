import { createSpinner } from 'nanospinner';
import { ProblemError } from '../sdk/index.ts';

/** Every command's shared option: machine output (JSON) on stdout and nothing else there. */
export interface JsonOption {
  json?: boolean;
}

/** Prints `value` as JSON with --json, else the human lines. */
export function print(options: JsonOption, value: unknown, human: () => string): void {
  process.stdout.write(options.json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

/** A failure as the user reads it: the problem's detail, then each offending path. */
export function describeFailure(error: unknown): string {
  if (error instanceof ProblemError) {
    const lines = [`${error.status} ${error.title}${error.detail ? `: ${error.detail}` : ''}`];
    for (const item of error.errors) lines.push(`  ${item.path}: ${item.message}`);
    return lines.join('\n');
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs a command's action: a failure goes to stderr (problem detail and paths) with exit code 1,
 * so scripts can rely on stdout holding only the answer.
 */
export function action<A extends unknown[]>(run: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await run(...args);
    } catch (error) {
      process.stderr.write(`appbuilder: ${describeFailure(error)}\n`);
      process.exitCode = 1;
    }
  };
}

/** A one-line progress indicator of a long operation, shown only on a terminal and never with --json. */
export interface Progress {
  update(text: string): void;
  done(text?: string): void;
  fail(text?: string): void;
}

export function progress(options: JsonOption, text: string): Progress {
  if (options.json || !process.stdout.isTTY) return { update() {}, done() {}, fail() {} };
  const spinner = createSpinner(text, { stream: process.stdout }).start();
  return {
    update: (next) => void spinner.update({ text: next }),
    done: (next) => void spinner.success({ text: next ?? text }),
    fail: (next) => void spinner.error({ text: next ?? text }),
  };
}
