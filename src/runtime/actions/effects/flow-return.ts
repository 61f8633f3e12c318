// flow.return: ends the run with an HTTP response. Without `body` the response body is the
// action's bindReturnValue (evaluated by the engine at the end).
import type { EffectModule } from '../types.ts';

type ReturnParams = { status?: number; headers?: Record<string, string>; body?: unknown };

export const flowReturn: EffectModule<ReturnParams> = {
  name: 'flow.return',
  run(params, ctx) {
    const response = { status: params.status ?? 200, headers: params.headers ?? {}, body: params.body };
    ctx.respond(response);
    return response;
  },
};
