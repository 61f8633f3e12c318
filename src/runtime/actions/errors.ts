// Two kinds of failure: an ActionError is an effect's failure (routed to handlers by the engine);
// a RunAbort is a limit being hit (steps, wall time, nesting), which no handler may catch, since a
// handler could otherwise loop on forever.
import { Problem } from '../../errors.ts';
import type { RunError } from './types.ts';

export class ActionError extends Error {
  readonly code: string;
  readonly status: number;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ActionError';
    this.status = status;
    this.code = code;
  }
}

export type AbortCode = 'step_limit' | 'time_limit' | 'nesting_limit';

export class RunAbort extends Error {
  readonly code: AbortCode;

  constructor(code: AbortCode, message: string) {
    super(message);
    this.name = 'RunAbort';
    this.code = code;
  }
}

/** A thrown value as the `error` handlers see, attributed to an effect. */
export function toRunError(error: unknown, effectId: string | null): RunError {
  if (error instanceof ActionError) return { message: error.message, code: error.code, effectId, status: error.status };
  if (error instanceof RunAbort) return { message: error.message, code: error.code, effectId, status: 500 };
  if (error instanceof Problem) {
    return { message: error.message, code: codeOfStatus(error.status), effectId, status: error.status };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { message, code: 'effect_error', effectId, status: 500 };
}

function codeOfStatus(status: number): string {
  switch (status) {
    case 400:
      return 'bad_request';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 409:
      return 'conflict';
    case 422:
      return 'unprocessable';
    default:
      return status >= 500 ? 'effect_error' : 'request_error';
  }
}

export const notFoundError = (model: string, id: string) =>
  new ActionError(404, 'not_found', `No ${model} record with id '${id}'.`);
