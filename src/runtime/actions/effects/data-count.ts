// data.count: how many records match a filter.
import type { EffectModule } from '../types.ts';

type CountParams = { model: string; filter?: string };

export const dataCount: EffectModule<CountParams> = {
  name: 'data.count',
  run(params, ctx) {
    return ctx.ports.data.count(params.model, { filter: params.filter });
  },
};
