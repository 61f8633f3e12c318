// event.emit: queues a custom event; the caller delivers it after commit, never after a failed run.
import { ActionError } from '../errors.ts';
import type { EffectModule } from '../types.ts';

type EmitParams = { eventName: string; payload?: Record<string, unknown> };

export const eventEmit: EffectModule<EmitParams> = {
  name: 'event.emit',
  async run(params, ctx) {
    // `$` names are the runtime's own outbox rows (a mail of email.send is `$mail`).
    if (params.eventName.startsWith('$')) throw new ActionError(422, 'invalid_params', `An event name cannot start with '$' ('${params.eventName}').`);
    const payload = params.payload ?? {};
    await ctx.ports.emit(params.eventName, payload);
    return { eventName: params.eventName, payload };
  },
};
