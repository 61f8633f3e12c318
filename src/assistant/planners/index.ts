import type { Config } from '../../config.ts';
import type { AppValuesSource } from '../../secrets/app-values.ts';
import type { AppDefinition } from '../../definition/schema.ts';
import type { Plan } from '../proposals.ts';
import type { Planner } from './planner.ts';
import { BuiltinPlanner } from './builtin/index.ts';
import { LlmPlanner } from './llm.ts';

/** The secret (of the application or, inherited, of its project) holding the provider key when the environment has none. */
export const KEY_SECRET = 'ASSISTANT_API_KEY';

/**
 * The LLM planner when the operator configured its endpoint and model and a key is found:
 * APPBUILDER_ASSISTANT_KEY, else the application's secret ASSISTANT_API_KEY (each customer may
 * bring its own). Otherwise the built-in planner.
 */
export function plannerFor(config: Config['assistant'], secrets?: AppValuesSource): Planner {
  const builtin = new BuiltinPlanner();
  const { url, model } = config;
  if (!url || !model) return builtin;
  if (config.key) return new LlmPlanner({ url, model, key: config.key, timeoutMs: config.timeoutMs });
  if (!secrets) return builtin;
  return {
    name: 'llm-with-secret-key',
    async plan(request: { text: string; definition: AppDefinition; applicationId?: string }): Promise<Plan> {
      const key = request.applicationId ? (await secrets.forApplication(request.applicationId)).secrets[KEY_SECRET] : undefined;
      if (!key) return builtin.plan(request);
      return new LlmPlanner({ url, model, key, timeoutMs: config.timeoutMs }).plan(request);
    },
  };
}
