// data.get: one record by id; a missing (or unreadable) record is an error with status 404.
import { notFoundError } from '../errors.ts';
import type { EffectModule } from '../types.ts';

type GetParams = { model: string; id: string };

export const dataGet: EffectModule<GetParams> = {
  name: 'data.get',
  async run(params, ctx) {
    const record = await ctx.ports.data.get(params.model, params.id);
    if (record === null) throw notFoundError(params.model, params.id);
    return record;
  },
};
