// data.update: changes the given fields of a record; a missing record is a 404.
import { notFoundError } from '../errors.ts';
import type { EffectModule } from '../types.ts';

type UpdateParams = { model: string; id: string; values: Record<string, unknown> };

export const dataUpdate: EffectModule<UpdateParams> = {
  name: 'data.update',
  async run(params, ctx) {
    const record = await ctx.ports.data.update(params.model, params.id, params.values);
    if (record === null) throw notFoundError(params.model, params.id);
    return record;
  },
};
