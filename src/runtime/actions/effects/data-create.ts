// data.create: creates a record; the output is the created record (with its id).
import type { EffectModule } from '../types.ts';

type CreateParams = { model: string; values: Record<string, unknown> };

export const dataCreate: EffectModule<CreateParams> = {
  name: 'data.create',
  run(params, ctx) {
    return ctx.ports.data.create(params.model, params.values);
  },
};
