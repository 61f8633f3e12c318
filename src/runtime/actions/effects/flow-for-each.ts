// flow.forEach: runs the `body` chain once per item with `state[as]` (default `item`) set;
// its output is the list of each iteration's last output. Nesting is limited by the engine.
import type { EffectModule } from '../types.ts';

type ForEachParams = { items: unknown[]; body: string; as?: string };

export const flowForEach: EffectModule<ForEachParams> = {
  name: 'flow.forEach',
  async run(params, ctx) {
    const outputs: unknown[] = [];
    for (const item of params.items) {
      const iteration = await ctx.runBody(params.body, params.as ?? 'item', item);
      outputs.push(iteration.output);
      // flow.return inside the body ends the whole run, so the loop stops too.
      if (iteration.returned) break;
    }
    return outputs;
  },
};
