// data.find: a list of records (filter, sort, limit, offset as in the list endpoint).
import type { EffectModule } from '../types.ts';

type FindParams = { model: string; filter?: string; sort?: string; limit?: number; offset?: number };

export const dataFind: EffectModule<FindParams> = {
  name: 'data.find',
  run(params, ctx) {
    const { model, filter, sort, limit, offset } = params;
    return ctx.ports.data.find(model, { filter, sort, limit, offset });
  },
};
