// data.delete: deletes a record; the output is the deleted record; a missing record is a 404.
import { notFoundError } from '../errors.ts';
import type { EffectModule } from '../types.ts';

type DeleteParams = { model: string; id: string };

export const dataDelete: EffectModule<DeleteParams> = {
  name: 'data.delete',
  async run(params, ctx) {
    const record = await ctx.ports.data.delete(params.model, params.id);
    if (record === null) throw notFoundError(params.model, params.id);
    return record;
  },
};
