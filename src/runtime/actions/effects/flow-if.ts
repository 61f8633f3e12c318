// flow.if: true → continue at `next`; false → go to `else` when given, else end the chain.
import type { EffectModule } from '../types.ts';

type FlowIfParams = { condition: boolean; else?: string };

export const flowIf: EffectModule<FlowIfParams> = {
  name: 'flow.if',
  run(params, ctx) {
    if (!params.condition) {
      if (params.else !== undefined) ctx.goto(params.else);
      else ctx.end();
    }
    return params.condition;
  },
};
