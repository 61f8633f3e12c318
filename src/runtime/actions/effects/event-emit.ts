// event.emit: queues a custom event; the caller delivers it after commit, never after a failed run.
import type { EffectModule } from '../types.ts';

type EmitParams = { eventName: string; payload?: Record<string, unknown> };

export const eventEmit: EffectModule<EmitParams> = {
  name: 'event.emit',
  async run(params, ctx) {
    const payload = params.payload ?? {};
    await ctx.ports.emit(params.eventName, payload);
    return { eventName: params.eventName, payload };
  },
};
