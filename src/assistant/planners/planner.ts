import type { AppDefinition } from '../../definition/schema.ts';
import type { Plan } from '../proposals.ts';

/** Turns a plain-language request about one application into operations (DESIGN §15). */
export interface Planner {
  readonly name: string;
  plan(request: { text: string; definition: AppDefinition }): Promise<Plan>;
}
