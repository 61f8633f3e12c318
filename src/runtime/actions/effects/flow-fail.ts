// flow.fail: fails on purpose; the engine routes the failure like any other (handlers, then the run).
import { ActionError } from '../errors.ts';
import type { EffectModule } from '../types.ts';

type FailParams = { status?: number; message: string; code?: string };

/** A business rule refusing the request is the caller's problem by default, hence 400. */
const DEFAULT_STATUS = 400;

export const flowFail: EffectModule<FailParams> = {
  name: 'flow.fail',
  run(params) {
    throw new ActionError(params.status ?? DEFAULT_STATUS, params.code ?? 'action_failed', params.message);
  },
};
