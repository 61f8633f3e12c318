import type { Config } from '../../config.ts';
import type { Planner } from './planner.ts';
import { BuiltinPlanner } from './builtin/index.ts';
import { LlmPlanner } from './llm.ts';

/** The LLM planner when its endpoint, model and key are configured; the built-in one otherwise. */
export function plannerFor(config: Config['assistant']): Planner {
  if (config.url && config.model && config.key) {
    return new LlmPlanner({ url: config.url, model: config.model, key: config.key, timeoutMs: config.timeoutMs });
  }
  return new BuiltinPlanner();
}
