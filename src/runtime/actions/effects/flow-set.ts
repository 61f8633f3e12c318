// flow.set: writes a value to the run's state (`state.{name}` in later expressions).
import type { EffectModule } from '../types.ts';

type SetParams = { name: string; value: unknown };

export const flowSet: EffectModule<SetParams> = {
  name: 'flow.set',
  run(params, ctx) {
    ctx.state[params.name] = params.value;
    return params.value;
  },
};
